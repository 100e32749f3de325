// RUN: amp-opt %s --tg-autodiff --amp-accumulate-gradients=micro-batches=2 --cse | FileCheck %s
// RUN: amp-opt %s --tg-autodiff --amp-accumulate-gradients=micro-batches=1 | FileCheck %s --check-prefix=ONE

// Two micro-batches of 4 rows: the batch arguments grow to 8 rows, the
// forward and backward passes run once on each half, and the optimizer
// gets the mean of their gradients (a running f32 sum after each
// micro-batch, times 1/2 once); the loss is their mean, the logits are
// concatenated. The update and what follows it run once.

// CHECK-LABEL: func.func @train_step
// CHECK-SAME: %[[W:[a-z0-9]+]]: tensor<3x2xf32> {tg.role = "param"}
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<8x3xf32> {tg.role = "input"}
// CHECK-SAME: %[[Y:[a-z0-9]+]]: tensor<8xi32> {tg.role = "label"}
// CHECK-SAME: -> (tensor<f32> {tg.role = "loss"}, tensor<8x2xf32> {tg.role = "logits"}, tensor<3x2xf32> {tg.role = "param"})
// CHECK-SAME: attributes {amp.micro_batches = 2 : i64}
// CHECK: %[[X0:.+]] = tg.slice %[[X]] {offsets = array<i64: 0, 0>, sizes = array<i64: 4, 3>} : tensor<8x3xf32>
// CHECK: %[[Y0:.+]] = tg.slice %[[Y]] {offsets = array<i64: 0>, sizes = array<i64: 4>} : tensor<8xi32>
// CHECK: %[[Z0:.+]] = tg.matmul %[[X0]], %[[W]]
// CHECK: %[[L0:.+]] = tg.reduce_mean
// CHECK: tg.grad_seed %[[L0]]
// CHECK: %[[G0:.+]] = tg.matmul %[[X0]], %{{.+}} {transpose_a = true}
// CHECK: %[[X1:.+]] = tg.slice %[[X]] {offsets = array<i64: 4, 0>, sizes = array<i64: 4, 3>} : tensor<8x3xf32>
// CHECK: %[[Y1:.+]] = tg.slice %[[Y]] {offsets = array<i64: 4>, sizes = array<i64: 4>} : tensor<8xi32>
// CHECK: %[[Z1:.+]] = tg.matmul %[[X1]], %[[W]]
// CHECK: %[[L1:.+]] = tg.reduce_mean
// CHECK: tg.grad_seed %[[L1]]
// CHECK: %[[G1:.+]] = tg.matmul %[[X1]], %{{.+}} {transpose_a = true}
// CHECK: %[[LSUM:.+]] = tg.add %[[L0]], %[[L1]] : tensor<f32>
// CHECK: %[[GSUM:.+]] = tg.add %[[G0]], %[[G1]] : tensor<3x2xf32>
// CHECK: %[[LOGITS:.+]] = tg.concat %[[Z0]], %[[Z1]] {axis = 0 : i64} : tensor<4x2xf32>, tensor<4x2xf32>
// CHECK: %[[HALF:.+]] = arith.constant dense<5.000000e-01> : tensor<f32>
// CHECK: %[[LOSS:.+]] = tg.mul %[[LSUM]], %[[HALF]] : tensor<f32>
// CHECK: %[[G:.+]] = tg.mul %[[GSUM]], %[[HALF]] : tensor<3x2xf32>, tensor<f32>
// CHECK: %[[NEW:.+]] = tg.sgd_update %[[W]], %[[G]]
// CHECK: return %[[LOSS]], %[[LOGITS]], %[[NEW]]
// CHECK-NOT: tg.grad_seed

// ONE-LABEL: func.func @train_step
// ONE-SAME: tensor<4x3xf32> {tg.role = "input"}
// ONE-NOT: amp.micro_batches
// ONE-NOT: tg.slice

func.func @train_step(%w: tensor<3x2xf32> {tg.role = "param"},
                      %x: tensor<4x3xf32> {tg.role = "input"},
                      %y: tensor<4xi32> {tg.role = "label"},
                      %lr: tensor<f32> {tg.role = "lr"})
    -> (tensor<f32> {tg.role = "loss"}, tensor<4x2xf32> {tg.role = "logits"},
        tensor<3x2xf32> {tg.role = "param"}) {
  %z = tg.matmul %x, %w : tensor<4x3xf32>, tensor<3x2xf32>
  %ce = tg.softmax_cross_entropy %z, %y : tensor<4x2xf32>, tensor<4xi32>
  %loss = tg.reduce_mean %ce {dims = array<i64: 0>} : tensor<4xf32>
  %g = tg.gradients %loss wrt %w : tensor<f32>, tensor<3x2xf32>
  %wn = tg.sgd_update %w, %g, %lr : tensor<3x2xf32>
  return %loss, %z, %wn : tensor<f32>, tensor<4x2xf32>, tensor<3x2xf32>
}

// A function without optimizer updates (an evaluation entry) keeps its
// batch.
// CHECK-LABEL: func.func @predict
// CHECK-SAME: tensor<4x3xf32> {tg.role = "input"}
// CHECK-NOT: tg.slice
func.func @predict(%w: tensor<3x2xf32> {tg.role = "param"},
                   %x: tensor<4x3xf32> {tg.role = "input"})
    -> (tensor<4x2xf32> {tg.role = "logits"}) {
  %z = tg.matmul %x, %w : tensor<4x3xf32>, tensor<3x2xf32>
  return %z : tensor<4x2xf32>
}
