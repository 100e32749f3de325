// A two-layer MLP training step for Fashion-MNIST (784 -> 128 -> 10), batch
// 32, with the backward pass written out with tg's gradient ops and a plain
// SGD update. amp-opt verifies it; the demo runs it through the pipeline.
//
// RUN: amp-opt %s | amp-opt | FileCheck %s
// RUN: amp-opt %s --canonicalize --cse | FileCheck %s --check-prefix=CANON

// CHECK-LABEL: func.func @train_step
// CHECK-SAME: {tg.init = "glorot_uniform", tg.role = "param"}
// CHECK: tg.softmax_cross_entropy_grad
// CHECK-COUNT-4: tg.sgd_update
// CANON-LABEL: func.func @train_step
// CANON-COUNT-4: tg.sgd_update
func.func @train_step(
    %w1: tensor<784x128xf32> {tg.role = "param", tg.init = "glorot_uniform"},
    %b1: tensor<128xf32> {tg.role = "param", tg.init = "zeros"},
    %w2: tensor<128x10xf32> {tg.role = "param", tg.init = "glorot_uniform"},
    %b2: tensor<10xf32> {tg.role = "param", tg.init = "zeros"},
    %x: tensor<32x784xf32> {tg.role = "input"},
    %y: tensor<32xi32> {tg.role = "label"},
    %lr: tensor<f32> {tg.role = "lr"})
    -> (tensor<f32> {tg.role = "loss"},
        tensor<784x128xf32> {tg.role = "param"},
        tensor<128xf32> {tg.role = "param"},
        tensor<128x10xf32> {tg.role = "param"},
        tensor<10xf32> {tg.role = "param"}) {
  // Forward.
  %h = tg.matmul %x, %w1 : tensor<32x784xf32>, tensor<784x128xf32>
  %hb = tg.bias_add %h, %b1 : tensor<32x128xf32>, tensor<128xf32>
  %a = tg.relu %hb : tensor<32x128xf32>
  %l = tg.matmul %a, %w2 : tensor<32x128xf32>, tensor<128x10xf32>
  %logits = tg.bias_add %l, %b2 : tensor<32x10xf32>, tensor<10xf32>
  %ce = tg.softmax_cross_entropy %logits, %y : tensor<32x10xf32>, tensor<32xi32>
  %loss = tg.reduce_mean %ce {dims = array<i64: 0>} : tensor<32xf32>

  // Backward, from the seed through the mean.
  %seed = tg.grad_seed %loss : tensor<f32>
  %inv_n = arith.constant dense<3.125000e-02> : tensor<f32>
  %dmean = tg.mul %seed, %inv_n : tensor<f32>
  %dce = tg.broadcast_to %dmean : tensor<f32> -> tensor<32xf32>
  %dlogits = tg.softmax_cross_entropy_grad %dce, %logits, %y : tensor<32xf32>, tensor<32x10xf32>, tensor<32xi32>
  %db2 = tg.bias_add_grad %dlogits : tensor<32x10xf32>
  %dw2 = tg.matmul %a, %dlogits {transpose_a = true} : tensor<32x128xf32>, tensor<32x10xf32>
  %da = tg.matmul %dlogits, %w2 {transpose_b = true} : tensor<32x10xf32>, tensor<128x10xf32>
  %dhb = tg.relu_grad %da, %hb : tensor<32x128xf32>
  %db1 = tg.bias_add_grad %dhb : tensor<32x128xf32>
  %dw1 = tg.matmul %x, %dhb {transpose_a = true} : tensor<32x784xf32>, tensor<32x128xf32>

  // Update.
  %w1n = tg.sgd_update %w1, %dw1, %lr : tensor<784x128xf32>
  %b1n = tg.sgd_update %b1, %db1, %lr : tensor<128xf32>
  %w2n = tg.sgd_update %w2, %dw2, %lr : tensor<128x10xf32>
  %b2n = tg.sgd_update %b2, %db2, %lr : tensor<10xf32>
  return %loss, %w1n, %b1n, %w2n, %b2n
      : tensor<f32>, tensor<784x128xf32>, tensor<128xf32>, tensor<128x10xf32>, tensor<10xf32>
}
