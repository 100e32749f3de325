// A Fashion-MNIST MLP (784 -> 128 -> 10) written forward-only: the loss,
// tg.gradients and an Adam step. --amp-pipeline writes the backward pass,
// moves the matmuls to f16 and adds dynamic loss scaling.
//
// RUN: amp-opt %s --amp-pipeline | FileCheck %s
// RUN: amp-opt %s --amp-pipeline=precision=bf16 | FileCheck %s --check-prefix=BF16
// RUN: amp-opt %s --amp-pipeline="mode=static init-scale=128" | FileCheck %s --check-prefix=STATIC

// CHECK-LABEL: func.func @train_step
// CHECK-SAME: tensor<f32> {tg.init_value = 6.553600e+04 : f32, tg.role = "loss_scale"}, %[[N:[^:]*]]: tensor<i64> {tg.init_value = 0 : i64, tg.role = "good_steps"}
// CHECK-NOT: tg.gradients
// Forward and backward contractions run in f16; master weights stay f32.
// CHECK: tg.matmul {{.*}} : tensor<32x784xf16>, tensor<784x128xf16>
// CHECK: tg.softmax_cross_entropy {{.*}} : tensor<32x10xf32>, tensor<32xi32>
// CHECK: amp.scale
// CHECK: tg.softmax_cross_entropy_grad {{.*}} : tensor<32xf32>, tensor<32x10xf32>, tensor<32xi32>
// CHECK: tg.relu_grad {{.*}} : tensor<32x128xf16>
// CHECK: tg.matmul {{.*}} {transpose_a = true} : tensor<32x784xf16>, tensor<32x128xf16>
// CHECK: %[[OK:.*]] = amp.all_finite
// CHECK-COUNT-4: tg.adam_update {{.*}} : tensor<{{[0-9x]+}}xf32>
// CHECK: amp.update_scale %{{.*}}, %[[N]], %[[OK]]
// CHECK: return
// predict runs in the same mixed precision and has no backward pass; its
// logits keep their f32 type (tg.role pins the signature).
// CHECK-LABEL: func.func @predict
// CHECK-NOT: amp.scale
// CHECK: tg.matmul {{.*}} : tensor<32x784xf16>, tensor<784x128xf16>
// CHECK: return {{.*}} : tensor<32x10xf32>

// BF16-LABEL: func.func @train_step
// BF16-NOT: loss_scale
// BF16: tg.matmul {{.*}} : tensor<32x784xbf16>, tensor<784x128xbf16>
// BF16-NOT: amp.scale
// BF16-NOT: amp.update_scale

// STATIC-LABEL: func.func @train_step
// STATIC-NOT: loss_scale
// STATIC: arith.constant dense<1.280000e+02> : tensor<f32>
// STATIC: amp.scale
// STATIC-NOT: amp.all_finite
// STATIC: amp.unscale
func.func @train_step(
    %w1: tensor<784x128xf32> {tg.role = "param", tg.init = "glorot_uniform"},
    %b1: tensor<128xf32> {tg.role = "param", tg.init = "zeros"},
    %w2: tensor<128x10xf32> {tg.role = "param", tg.init = "glorot_uniform"},
    %b2: tensor<10xf32> {tg.role = "param", tg.init = "zeros"},
    %m1: tensor<784x128xf32> {tg.role = "opt_state"}, %v1: tensor<784x128xf32> {tg.role = "opt_state"},
    %mb1: tensor<128xf32> {tg.role = "opt_state"}, %vb1: tensor<128xf32> {tg.role = "opt_state"},
    %m2: tensor<128x10xf32> {tg.role = "opt_state"}, %v2: tensor<128x10xf32> {tg.role = "opt_state"},
    %mb2: tensor<10xf32> {tg.role = "opt_state"}, %vb2: tensor<10xf32> {tg.role = "opt_state"},
    %step: tensor<i64> {tg.role = "opt_state"},
    %x: tensor<32x784xf32> {tg.role = "input"},
    %y: tensor<32xi32> {tg.role = "label"},
    %lr: tensor<f32> {tg.role = "lr"})
    -> (tensor<f32> {tg.role = "loss"},
        tensor<784x128xf32> {tg.role = "param"}, tensor<128xf32> {tg.role = "param"},
        tensor<128x10xf32> {tg.role = "param"}, tensor<10xf32> {tg.role = "param"},
        tensor<784x128xf32> {tg.role = "opt_state"}, tensor<784x128xf32> {tg.role = "opt_state"},
        tensor<128xf32> {tg.role = "opt_state"}, tensor<128xf32> {tg.role = "opt_state"},
        tensor<128x10xf32> {tg.role = "opt_state"}, tensor<128x10xf32> {tg.role = "opt_state"},
        tensor<10xf32> {tg.role = "opt_state"}, tensor<10xf32> {tg.role = "opt_state"},
        tensor<i64> {tg.role = "opt_state"}) {
  %h = tg.matmul %x, %w1 : tensor<32x784xf32>, tensor<784x128xf32>
  %hb = tg.bias_add %h, %b1 : tensor<32x128xf32>, tensor<128xf32>
  %a = tg.relu %hb : tensor<32x128xf32>
  %z = tg.matmul %a, %w2 : tensor<32x128xf32>, tensor<128x10xf32>
  %logits = tg.bias_add %z, %b2 : tensor<32x10xf32>, tensor<10xf32>
  %ce = tg.softmax_cross_entropy %logits, %y : tensor<32x10xf32>, tensor<32xi32>
  %loss = tg.reduce_mean %ce {dims = array<i64: 0>} : tensor<32xf32>
  %g:4 = tg.gradients %loss wrt %w1, %b1, %w2, %b2
      : tensor<f32>, tensor<784x128xf32>, tensor<128xf32>, tensor<128x10xf32>, tensor<10xf32>
  %one = arith.constant dense<1> : tensor<i64>
  %t = tg.add %step, %one : tensor<i64>
  %w1n, %m1n, %v1n = tg.adam_update %w1, %g#0, %m1, %v1, %t, %lr : tensor<784x128xf32>
  %b1n, %mb1n, %vb1n = tg.adam_update %b1, %g#1, %mb1, %vb1, %t, %lr : tensor<128xf32>
  %w2n, %m2n, %v2n = tg.adam_update %w2, %g#2, %m2, %v2, %t, %lr : tensor<128x10xf32>
  %b2n, %mb2n, %vb2n = tg.adam_update %b2, %g#3, %mb2, %vb2, %t, %lr : tensor<10xf32>
  return %loss, %w1n, %b1n, %w2n, %b2n, %m1n, %v1n, %mb1n, %vb1n, %m2n, %v2n, %mb2n, %vb2n, %t
      : tensor<f32>, tensor<784x128xf32>, tensor<128xf32>, tensor<128x10xf32>, tensor<10xf32>,
        tensor<784x128xf32>, tensor<784x128xf32>, tensor<128xf32>, tensor<128xf32>,
        tensor<128x10xf32>, tensor<128x10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<i64>
}

// Test-set evaluation: the params in order and an input batch.
func.func @predict(%w1: tensor<784x128xf32>, %b1: tensor<128xf32>,
                   %w2: tensor<128x10xf32>, %b2: tensor<10xf32>,
                   %x: tensor<32x784xf32> {tg.role = "input"})
    -> (tensor<32x10xf32> {tg.role = "logits"}) {
  %h = tg.matmul %x, %w1 : tensor<32x784xf32>, tensor<784x128xf32>
  %hb = tg.bias_add %h, %b1 : tensor<32x128xf32>, tensor<128xf32>
  %a = tg.relu %hb : tensor<32x128xf32>
  %z = tg.matmul %a, %w2 : tensor<32x128xf32>, tensor<128x10xf32>
  %logits = tg.bias_add %z, %b2 : tensor<32x10xf32>, tensor<10xf32>
  return %logits : tensor<32x10xf32>
}
