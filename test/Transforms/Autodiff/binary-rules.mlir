// Gradient rules of the broadcasting binary ops and select: broadcasts are
// undone with reductions, with tg.bias_add_grad for a bias.
// RUN: amp-opt %s --tg-autodiff | FileCheck %s

// CHECK-LABEL: func.func @bias_pattern
// CHECK: %[[DY:.*]] = tg.broadcast_to {{.*}} -> tensor<32x128xf32>
// CHECK: %[[DB:.*]] = tg.bias_add_grad %[[DY]] : tensor<32x128xf32>
// CHECK: return %[[DY]], %[[DB]]
func.func @bias_pattern(%x: tensor<32x128xf32>, %b: tensor<128xf32>) -> (tensor<32x128xf32>, tensor<128xf32>) {
  %y = tg.add %x, %b : tensor<32x128xf32>, tensor<128xf32>
  %l = tg.reduce_sum %y {dims = array<i64: 0, 1>} : tensor<32x128xf32>
  %g:2 = tg.gradients %l wrt %x, %b : tensor<f32>, tensor<32x128xf32>, tensor<128xf32>
  return %g#0, %g#1 : tensor<32x128xf32>, tensor<128xf32>
}

// A [4, 1] operand broadcast along dim 1 gets a reduce_sum over dim 1 and a
// reshape back; a scalar gets a full reduction.
// CHECK-LABEL: func.func @broadcast_reductions
// CHECK: tg.grad_seed
// CHECK: %[[DS:.*]] = tg.reduce_sum %{{.*}} {dims = array<i64: 0, 1>} : tensor<4x8xf32>
// CHECK: %[[N:.*]] = tg.neg %{{.*}} : tensor<4x8xf32>
// CHECK: %[[R:.*]] = tg.reduce_sum %[[N]] {dims = array<i64: 1>} : tensor<4x8xf32>
// CHECK: %[[C:.*]] = tg.reshape %[[R]] : tensor<4xf32> -> tensor<4x1xf32>
// CHECK: return %[[C]], %[[DS]]
func.func @broadcast_reductions(%x: tensor<4x8xf32>, %c: tensor<4x1xf32>, %s: tensor<f32>) -> (tensor<4x1xf32>, tensor<f32>) {
  %a = tg.sub %x, %c : tensor<4x8xf32>, tensor<4x1xf32>
  %m = tg.mul %a, %s : tensor<4x8xf32>, tensor<f32>
  %l = tg.reduce_sum %m {dims = array<i64: 0, 1>} : tensor<4x8xf32>
  %g:2 = tg.gradients %l wrt %c, %s : tensor<f32>, tensor<4x1xf32>, tensor<f32>
  return %g#0, %g#1 : tensor<4x1xf32>, tensor<f32>
}

// mul: (dy * b, dy * a); div: (dy / b, -(dy * y) / b).
// CHECK-LABEL: func.func @mul_div
// CHECK: %[[Q:.*]] = tg.div %[[P:.*]], %[[B:[^ ]*]] :
// CHECK-DAG: tg.div %{{.*}}, %[[B]]
// CHECK-DAG: tg.mul %{{.*}}, %[[Q]]
func.func @mul_div(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %p = tg.mul %a, %a : tensor<4xf32>
  %q = tg.div %p, %b : tensor<4xf32>
  %l = tg.reduce_sum %q {dims = array<i64: 0>} : tensor<4xf32>
  %g:2 = tg.gradients %l wrt %a, %b : tensor<f32>, tensor<4xf32>, tensor<4xf32>
  return %g#0, %g#1 : tensor<4xf32>, tensor<4xf32>
}

// pow: b * a^(b-1) for a, y * log(a) (0 where a <= 0) for b.
// CHECK-LABEL: func.func @pow
// CHECK: tg.sub %[[E:.*]], %{{.*}} : tensor<4xf32>, tensor<f32>
// CHECK: tg.pow
// CHECK: tg.compare "gt"
// CHECK: tg.log
func.func @pow(%a: tensor<4xf32>, %e: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %p = tg.pow %a, %e : tensor<4xf32>
  %l = tg.reduce_sum %p {dims = array<i64: 0>} : tensor<4xf32>
  %g:2 = tg.gradients %l wrt %a, %e : tensor<f32>, tensor<4xf32>, tensor<4xf32>
  return %g#0, %g#1 : tensor<4xf32>, tensor<4xf32>
}

// maximum / minimum / select route the gradient by a mask.
// CHECK-LABEL: func.func @routing
// CHECK-DAG: tg.compare "ge"
// CHECK-DAG: tg.compare "le"
// CHECK: tg.select
func.func @routing(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<4xi1>) -> (tensor<4xf32>, tensor<4xf32>) {
  %m = tg.maximum %a, %b : tensor<4xf32>
  %n = tg.minimum %m, %a : tensor<4xf32>
  %s = tg.select %c, %n, %b : tensor<4xi1>, tensor<4xf32>
  %l = tg.reduce_sum %s {dims = array<i64: 0>} : tensor<4xf32>
  %g:2 = tg.gradients %l wrt %a, %b : tensor<f32>, tensor<4xf32>, tensor<4xf32>
  return %g#0, %g#1 : tensor<4xf32>, tensor<4xf32>
}
