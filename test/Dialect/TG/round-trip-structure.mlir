// Round trip of reductions, shape, embedding, autodiff and optimizer ops,
// custom and generic form; pins the inferred types.
// RUN: amp-opt %s | amp-opt | FileCheck %s
// RUN: amp-opt %s --mlir-print-op-generic | amp-opt | FileCheck %s
// RUN: amp-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @reductions
// GENERIC-LABEL: sym_name = "reductions"
func.func @reductions(%x: tensor<32x10xf32>) {
  // CHECK: tg.reduce_sum %{{.*}} {dims = array<i64: 0, 1>} : tensor<32x10xf32>
  // GENERIC: "tg.reduce_sum"(%{{.*}}) {dims = array<i64: 0, 1>} : (tensor<32x10xf32>) -> tensor<f32>
  %s = tg.reduce_sum %x {dims = array<i64: 0, 1>} : tensor<32x10xf32>
  // CHECK: tg.reduce_mean %{{.*}} {dims = array<i64: -1>, keepdims = true} : tensor<32x10xf32>
  // GENERIC: "tg.reduce_mean"{{.*}} -> tensor<32x1xf32>
  %m = tg.reduce_mean %x {dims = array<i64: -1>, keepdims = true} : tensor<32x10xf32>
  // CHECK: tg.reduce_max %{{.*}} {dims = array<i64: 0>} : tensor<32x10xf32>
  // GENERIC: "tg.reduce_max"{{.*}} -> tensor<10xf32>
  %x0 = tg.reduce_max %x {dims = array<i64: 0>} : tensor<32x10xf32>
  return
}

// CHECK-LABEL: func.func @shape
// GENERIC-LABEL: sym_name = "shape"
func.func @shape(%x: tensor<8x28x28x1xf32>, %b: tensor<64xf32>, %m: tensor<8x16xf32>,
                 %n: tensor<8x4xf32>, %l: tensor<8xi32>) {
  // CHECK: tg.reshape %{{.*}} : tensor<8x28x28x1xf32> -> tensor<8x784xf32>
  %r = tg.reshape %x : tensor<8x28x28x1xf32> -> tensor<8x784xf32>
  // CHECK: tg.reshape %{{.*}} : tensor<8xi32> -> tensor<8x1xi32>
  %rl = tg.reshape %l : tensor<8xi32> -> tensor<8x1xi32>
  // CHECK: tg.broadcast_to %{{.*}} : tensor<64xf32> -> tensor<32x64xf32>
  %bc = tg.broadcast_to %b : tensor<64xf32> -> tensor<32x64xf32>
  // CHECK: tg.transpose %{{.*}} {perm = array<i64: 1, 0>} : tensor<8x16xf32>
  // GENERIC: "tg.transpose"{{.*}} -> tensor<16x8xf32>
  %t = tg.transpose %m {perm = array<i64: 1, 0>} : tensor<8x16xf32>
  // CHECK: tg.concat %{{.*}}, %{{.*}} {axis = 1 : i64} : tensor<8x16xf32>, tensor<8x4xf32>
  // GENERIC: "tg.concat"{{.*}} -> tensor<8x20xf32>
  %c = tg.concat %m, %n {axis = 1 : i64} : tensor<8x16xf32>, tensor<8x4xf32>
  // CHECK: tg.concat %{{.*}}, %{{.*}}, %{{.*}} : tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>
  // GENERIC: "tg.concat"{{.*}} -> tensor<8x12xf32>
  %c3 = tg.concat %n, %n, %n : tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>
  // CHECK: tg.slice %{{.*}} {offsets = array<i64: 0, 4>, sizes = array<i64: 8, 4>, strides = array<i64: 1, 2>} : tensor<8x16xf32>
  // GENERIC: "tg.slice"{{.*}} -> tensor<8x4xf32>
  %s = tg.slice %m {offsets = array<i64: 0, 4>, sizes = array<i64: 8, 4>, strides = array<i64: 1, 2>} : tensor<8x16xf32>
  // CHECK: tg.slice %{{.*}} {offsets = array<i64: 2, 0>, sizes = array<i64: 3, 16>} : tensor<8x16xf32>
  %s2 = tg.slice %m {offsets = array<i64: 2, 0>, sizes = array<i64: 3, 16>} : tensor<8x16xf32>
  // CHECK: tg.pad %{{.*}} {high = array<i64: 0, 1>, low = array<i64: 0, 1>, value = -1.000000e+00 : f64} : tensor<8x16xf32>
  // GENERIC: "tg.pad"{{.*}} -> tensor<8x18xf32>
  %p = tg.pad %m {low = array<i64: 0, 1>, high = array<i64: 0, 1>, value = -1.0 : f64} : tensor<8x16xf32>
  return
}

// CHECK-LABEL: func.func @embedding
// GENERIC-LABEL: sym_name = "embedding"
func.func @embedding(%table: tensor<1000x64xf32>, %ids: tensor<8x16xi32>, %ids64: tensor<5xi64>) {
  // CHECK: %[[E:.*]] = tg.gather %{{.*}}, %{{.*}} : tensor<1000x64xf32>, tensor<8x16xi32>
  // GENERIC: "tg.gather"{{.*}} -> tensor<8x16x64xf32>
  %e = tg.gather %table, %ids : tensor<1000x64xf32>, tensor<8x16xi32>
  // GENERIC: "tg.gather"{{.*}} -> tensor<5x64xf32>
  %e2 = tg.gather %table, %ids64 : tensor<1000x64xf32>, tensor<5xi64>
  // CHECK: tg.gather_grad %[[E]], %{{.*}} {num_rows = 1000 : i64} : tensor<8x16x64xf32>, tensor<8x16xi32>
  // GENERIC: "tg.gather_grad"{{.*}} -> tensor<1000x64xf32>
  %d = tg.gather_grad %e, %ids {num_rows = 1000 : i64} : tensor<8x16x64xf32>, tensor<8x16xi32>
  return
}

// CHECK-LABEL: func.func @autodiff
// GENERIC-LABEL: sym_name = "autodiff"
func.func @autodiff(%loss: tensor<f32>, %w: tensor<784x128xf32>, %b: tensor<128xf32>) {
  // CHECK: tg.grad_seed %{{.*}} : tensor<f32>
  %seed = tg.grad_seed %loss : tensor<f32>
  // CHECK: tg.gradients %{{.*}} wrt %{{.*}}, %{{.*}} : tensor<f32>, tensor<784x128xf32>, tensor<128xf32>
  // GENERIC: "tg.gradients"{{.*}} : (tensor<f32>, tensor<784x128xf32>, tensor<128xf32>) -> (tensor<784x128xf32>, tensor<128xf32>)
  %dw, %db = tg.gradients %loss wrt %w, %b : tensor<f32>, tensor<784x128xf32>, tensor<128xf32>
  return
}

// CHECK-LABEL: func.func @optimizer
// GENERIC-LABEL: sym_name = "optimizer"
func.func @optimizer(%w: tensor<784x128xf32>, %g: tensor<784x128xf32>, %v: tensor<784x128xf32>,
                     %m: tensor<784x128xf32>, %step: tensor<i64>, %lr: tensor<f32>,
                     %b: tensor<128xf32>, %gb: tensor<128xf32>) {
  // CHECK: tg.sgd_update %{{.*}}, %{{.*}}, %{{.*}} : tensor<784x128xf32>
  // GENERIC: "tg.sgd_update"{{.*}} : (tensor<784x128xf32>, tensor<784x128xf32>, tensor<f32>) -> tensor<784x128xf32>
  %w1 = tg.sgd_update %w, %g, %lr : tensor<784x128xf32>
  // CHECK: tg.momentum_update %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {momentum = {{.*}} : f64, nesterov = true} : tensor<784x128xf32>
  %w2, %v2 = tg.momentum_update %w, %g, %v, %lr {momentum = 0.99 : f64, nesterov = true} : tensor<784x128xf32>
  // CHECK: tg.momentum_update %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {weight_decay = 5.000000e-04 : f64} : tensor<784x128xf32>
  %w4, %v4 = tg.momentum_update %w, %g, %v, %lr {weight_decay = 5.0e-4 : f64} : tensor<784x128xf32>
  // CHECK: tg.adam_update %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {beta1 = 8.000000e-01 : f64, weight_decay = 1.000000e-02 : f64} : tensor<784x128xf32>
  // GENERIC: "tg.adam_update"{{.*}} : (tensor<784x128xf32>, tensor<784x128xf32>, tensor<784x128xf32>, tensor<784x128xf32>, tensor<i64>, tensor<f32>) -> (tensor<784x128xf32>, tensor<784x128xf32>, tensor<784x128xf32>)
  %w3, %m3, %v3 = tg.adam_update %w, %g, %m, %v, %step, %lr {beta1 = 0.8 : f64, weight_decay = 0.01 : f64} : tensor<784x128xf32>
  // CHECK: tg.clip_by_global_norm %{{.*}}, %{{.*}} {max_norm = 1.000000e+00 : f64} : tensor<784x128xf32>, tensor<128xf32>
  %c1, %c2 = tg.clip_by_global_norm %g, %gb {max_norm = 1.0 : f64} : tensor<784x128xf32>, tensor<128xf32>
  return
}
