// Gradient rules of reductions, shape and embedding ops.
// RUN: amp-opt %s --tg-autodiff | FileCheck %s

// reduce_mean scales by 1/count; reduce_max shares the gradient between
// ties; reduce_sum broadcasts back.
// CHECK-LABEL: func.func @reductions
// CHECK-DAG: arith.constant dense<1.250000e-01> : tensor<f32>
// CHECK-DAG: tg.compare "eq"
// CHECK-DAG: tg.reduce_sum {{.*}} {dims = array<i64: 1>, keepdims = true} : tensor<4x8xf32>
func.func @reductions(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %m = tg.reduce_mean %x {dims = array<i64: 1>} : tensor<4x8xf32>
  %k = tg.reduce_max %x {dims = array<i64: 1>} : tensor<4x8xf32>
  %s = tg.add %m, %k : tensor<4xf32>
  %l = tg.reduce_sum %s {dims = array<i64: 0>} : tensor<4xf32>
  %g = tg.gradients %l wrt %x : tensor<f32>, tensor<4x8xf32>
  return %g : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @shapes
// CHECK-DAG: tg.reshape {{.*}} : tensor<32xf32> -> tensor<4x8xf32>
// CHECK-DAG: tg.transpose {{.*}} {perm = array<i64: 1, 2, 0>} : tensor<4x2x4xf32>
// CHECK-DAG: tg.slice {{.*}} {offsets = array<i64: 0, 8>, sizes = array<i64: 4, 8>} : tensor<4x16xf32>
// CHECK-DAG: tg.pad {{.*}} {high = array<i64: 0, 2>, low = array<i64: 0, 2>} : tensor<4x4xf32>
// CHECK-DAG: tg.slice {{.*}} {offsets = array<i64: 1, 0>, sizes = array<i64: 4, 8>} : tensor<6x8xf32>
func.func @shapes(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = tg.reshape %x : tensor<4x8xf32> -> tensor<32xf32>
  %r2 = tg.reshape %r : tensor<32xf32> -> tensor<2x4x4xf32>
  %t = tg.transpose %r2 {perm = array<i64: 2, 0, 1>} : tensor<2x4x4xf32>
  %f = tg.reshape %t : tensor<4x2x4xf32> -> tensor<4x8xf32>
  %c = tg.concat %f, %x {axis = 1 : i64} : tensor<4x8xf32>, tensor<4x8xf32>
  %s = tg.slice %x {offsets = array<i64: 0, 2>, sizes = array<i64: 4, 4>} : tensor<4x8xf32>
  %p = tg.pad %x {low = array<i64: 1, 0>, high = array<i64: 1, 0>} : tensor<4x8xf32>
  %l1 = tg.reduce_sum %c {dims = array<i64: 0, 1>} : tensor<4x16xf32>
  %l2 = tg.reduce_sum %s {dims = array<i64: 0, 1>} : tensor<4x4xf32>
  %l3 = tg.reduce_sum %p {dims = array<i64: 0, 1>} : tensor<6x8xf32>
  %a = tg.add %l1, %l2 : tensor<f32>
  %l = tg.add %a, %l3 : tensor<f32>
  %g = tg.gradients %l wrt %x : tensor<f32>, tensor<4x8xf32>
  return %g : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @embedding
// CHECK: tg.gather_grad %{{.*}}, %{{.*}} {num_rows = 100 : i64} : tensor<4x6x16xf32>, tensor<4x6xi32>
func.func @embedding(%table: tensor<100x16xf32>, %ids: tensor<4x6xi32>) -> tensor<100x16xf32> {
  %e = tg.gather %table, %ids : tensor<100x16xf32>, tensor<4x6xi32>
  %l = tg.reduce_sum %e {dims = array<i64: 0, 1, 2>} : tensor<4x6x16xf32>
  %g = tg.gradients %l wrt %table : tensor<f32>, tensor<100x16xf32>
  return %g : tensor<100x16xf32>
}

// The default concat axis (-1) splits the gradient along the last dim.
// CHECK-LABEL: func.func @concat_default_axis
// CHECK-DAG: tg.slice {{.*}} {offsets = array<i64: 0, 0>, sizes = array<i64: 4, 5>} : tensor<4x7xf32>
// CHECK-DAG: tg.slice {{.*}} {offsets = array<i64: 0, 5>, sizes = array<i64: 4, 2>} : tensor<4x7xf32>
func.func @concat_default_axis(%a: tensor<4x5xf32>, %b: tensor<4x2xf32>) -> (tensor<4x5xf32>, tensor<4x2xf32>) {
  %c = tg.concat %a, %b : tensor<4x5xf32>, tensor<4x2xf32>
  %l = tg.reduce_sum %c {dims = array<i64: 0, 1>} : tensor<4x7xf32>
  %g:2 = tg.gradients %l wrt %a, %b : tensor<f32>, tensor<4x5xf32>, tensor<4x2xf32>
  return %g#0, %g#1 : tensor<4x5xf32>, tensor<4x2xf32>
}
