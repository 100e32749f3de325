// A Fashion-MNIST CNN written forward-only: conv 3x3 (1 -> 16) + bias +
// batch norm + relu + 2x2 max pool, conv 3x3 (16 -> 32) + bias + relu +
// max pool, a dense classifier, softmax cross-entropy and momentum SGD.
//
// RUN: amp-opt %s --amp-pipeline | FileCheck %s
// RUN: amp-opt %s --amp-pipeline=precision=bf16 | FileCheck %s --check-prefix=BF16

// CHECK-LABEL: func.func @train_step
// CHECK-NOT: tg.gradients
// The forward convolutions and their backward ops run in f16...
// CHECK-DAG: tg.conv2d {{.*}} : tensor<32x28x28x1xf16>, tensor<16x3x3x1xf16>
// CHECK-DAG: tg.conv2d {{.*}} : tensor<32x14x14x16xf16>, tensor<32x3x3x16xf16>
// CHECK-DAG: tg.conv2d_backward_input {{.*}} : tensor<32x14x14x32xf16>, tensor<32x3x3x16xf16> -> tensor<32x14x14x16xf16>
// CHECK-DAG: tg.conv2d_backward_filter {{.*}} -> tensor<16x3x3x1xf16>
// ...batch norm keeps f32 statistics on f16 data, and pooling follows.
// CHECK-DAG: tg.batch_norm {{.*}} : tensor<32x28x28x16xf16>, tensor<16xf32>
// CHECK-DAG: tg.batch_norm_grad {{.*}} : tensor<32x28x28x16xf16>, tensor<16xf32>
// CHECK-DAG: tg.max_pool2d_grad {{.*}} : tensor<32x14x14x16xf16>, tensor<32x28x28x16xf16>
// The loss and the updates stay f32 behind the finite check.
// CHECK-DAG: tg.softmax_cross_entropy {{.*}} : tensor<32x10xf32>, tensor<32xi32>
// CHECK: amp.all_finite
// CHECK-COUNT-6: tg.momentum_update {{.*}} : tensor<{{[0-9x]+}}xf32>
// CHECK: amp.update_scale

// predict is the forward pass for amp-run's test accuracy. There are no
// running statistics, so batch norm normalises with each test batch's own
// statistics (amp-run evaluates in batches of 32 drawn in test-set order).
// CHECK-LABEL: func.func @predict
// CHECK-NOT: amp.scale
// CHECK: tg.conv2d {{.*}} : tensor<32x28x28x1xf16>, tensor<16x3x3x1xf16>
// CHECK: return {{.*}} : tensor<32x10xf32>

// BF16-LABEL: func.func @train_step
// BF16: tg.conv2d {{.*}} : tensor<32x28x28x1xbf16>, tensor<16x3x3x1xbf16>
// BF16-NOT: amp.update_scale
func.func @train_step(
    %k1: tensor<16x3x3x1xf32> {tg.role = "param", tg.init = "he_normal"},
    %c1: tensor<16xf32> {tg.role = "param", tg.init = "zeros"},
    %gamma: tensor<16xf32> {tg.role = "param", tg.init = "ones"},
    %beta: tensor<16xf32> {tg.role = "param", tg.init = "zeros"},
    %k2: tensor<32x3x3x16xf32> {tg.role = "param", tg.init = "he_normal"},
    %c2: tensor<32xf32> {tg.role = "param", tg.init = "zeros"},
    %w: tensor<1568x10xf32> {tg.role = "param", tg.init = "glorot_uniform"},
    %b: tensor<10xf32> {tg.role = "param", tg.init = "zeros"},
    %vk1: tensor<16x3x3x1xf32> {tg.role = "opt_state"}, %vc1: tensor<16xf32> {tg.role = "opt_state"},
    %vk2: tensor<32x3x3x16xf32> {tg.role = "opt_state"}, %vc2: tensor<32xf32> {tg.role = "opt_state"},
    %vw: tensor<1568x10xf32> {tg.role = "opt_state"}, %vb: tensor<10xf32> {tg.role = "opt_state"},
    %x: tensor<32x28x28x1xf32> {tg.role = "input"},
    %y: tensor<32xi32> {tg.role = "label"},
    %lr: tensor<f32> {tg.role = "lr"})
    -> (tensor<f32> {tg.role = "loss"},
        tensor<16x3x3x1xf32> {tg.role = "param"}, tensor<16xf32> {tg.role = "param"},
        tensor<16xf32> {tg.role = "param"}, tensor<16xf32> {tg.role = "param"},
        tensor<32x3x3x16xf32> {tg.role = "param"}, tensor<32xf32> {tg.role = "param"},
        tensor<1568x10xf32> {tg.role = "param"}, tensor<10xf32> {tg.role = "param"},
        tensor<16x3x3x1xf32> {tg.role = "opt_state"}, tensor<16xf32> {tg.role = "opt_state"},
        tensor<32x3x3x16xf32> {tg.role = "opt_state"}, tensor<32xf32> {tg.role = "opt_state"},
        tensor<1568x10xf32> {tg.role = "opt_state"}, tensor<10xf32> {tg.role = "opt_state"}) {
  %y1 = tg.conv2d %x, %k1 {padding = array<i64: 1, 1, 1, 1>} : tensor<32x28x28x1xf32>, tensor<16x3x3x1xf32>
  %y1b = tg.bias_add %y1, %c1 : tensor<32x28x28x16xf32>, tensor<16xf32>
  %n1, %mean, %inv = tg.batch_norm %y1b, %gamma, %beta : tensor<32x28x28x16xf32>, tensor<16xf32>
  %r1 = tg.relu %n1 : tensor<32x28x28x16xf32>
  %p1 = tg.max_pool2d %r1 {window = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<32x28x28x16xf32>
  %y2 = tg.conv2d %p1, %k2 {padding = array<i64: 1, 1, 1, 1>} : tensor<32x14x14x16xf32>, tensor<32x3x3x16xf32>
  %y2b = tg.bias_add %y2, %c2 : tensor<32x14x14x32xf32>, tensor<32xf32>
  %r2 = tg.relu %y2b : tensor<32x14x14x32xf32>
  %p2 = tg.max_pool2d %r2 {window = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<32x14x14x32xf32>
  %flat = tg.reshape %p2 : tensor<32x7x7x32xf32> -> tensor<32x1568xf32>
  %z = tg.matmul %flat, %w : tensor<32x1568xf32>, tensor<1568x10xf32>
  %logits = tg.bias_add %z, %b : tensor<32x10xf32>, tensor<10xf32>
  %ce = tg.softmax_cross_entropy %logits, %y : tensor<32x10xf32>, tensor<32xi32>
  %loss = tg.reduce_mean %ce {dims = array<i64: 0>} : tensor<32xf32>
  %g:8 = tg.gradients %loss wrt %k1, %c1, %gamma, %beta, %k2, %c2, %w, %b
      : tensor<f32>, tensor<16x3x3x1xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>,
        tensor<32x3x3x16xf32>, tensor<32xf32>, tensor<1568x10xf32>, tensor<10xf32>
  %k1n, %vk1n = tg.momentum_update %k1, %g#0, %vk1, %lr {momentum = 0.9 : f64} : tensor<16x3x3x1xf32>
  %c1n, %vc1n = tg.momentum_update %c1, %g#1, %vc1, %lr {momentum = 0.9 : f64} : tensor<16xf32>
  %gn = tg.sgd_update %gamma, %g#2, %lr : tensor<16xf32>
  %bn = tg.sgd_update %beta, %g#3, %lr : tensor<16xf32>
  %k2n, %vk2n = tg.momentum_update %k2, %g#4, %vk2, %lr {momentum = 0.9 : f64} : tensor<32x3x3x16xf32>
  %c2n, %vc2n = tg.momentum_update %c2, %g#5, %vc2, %lr {momentum = 0.9 : f64} : tensor<32xf32>
  %wn, %vwn = tg.momentum_update %w, %g#6, %vw, %lr {momentum = 0.9 : f64} : tensor<1568x10xf32>
  %bbn, %vbn = tg.momentum_update %b, %g#7, %vb, %lr {momentum = 0.9 : f64} : tensor<10xf32>
  return %loss, %k1n, %c1n, %gn, %bn, %k2n, %c2n, %wn, %bbn, %vk1n, %vc1n, %vk2n, %vc2n, %vwn, %vbn
      : tensor<f32>, tensor<16x3x3x1xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>,
        tensor<32x3x3x16xf32>, tensor<32xf32>, tensor<1568x10xf32>, tensor<10xf32>,
        tensor<16x3x3x1xf32>, tensor<16xf32>, tensor<32x3x3x16xf32>, tensor<32xf32>,
        tensor<1568x10xf32>, tensor<10xf32>
}

func.func @predict(
    %k1: tensor<16x3x3x1xf32>, %c1: tensor<16xf32>, %gamma: tensor<16xf32>,
    %beta: tensor<16xf32>, %k2: tensor<32x3x3x16xf32>, %c2: tensor<32xf32>,
    %w: tensor<1568x10xf32>, %b: tensor<10xf32>,
    %x: tensor<32x28x28x1xf32> {tg.role = "input"})
    -> (tensor<32x10xf32> {tg.role = "logits"}) {
  %y1 = tg.conv2d %x, %k1 {padding = array<i64: 1, 1, 1, 1>} : tensor<32x28x28x1xf32>, tensor<16x3x3x1xf32>
  %y1b = tg.bias_add %y1, %c1 : tensor<32x28x28x16xf32>, tensor<16xf32>
  %n1, %mean, %inv = tg.batch_norm %y1b, %gamma, %beta : tensor<32x28x28x16xf32>, tensor<16xf32>
  %r1 = tg.relu %n1 : tensor<32x28x28x16xf32>
  %p1 = tg.max_pool2d %r1 {window = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<32x28x28x16xf32>
  %y2 = tg.conv2d %p1, %k2 {padding = array<i64: 1, 1, 1, 1>} : tensor<32x14x14x16xf32>, tensor<32x3x3x16xf32>
  %y2b = tg.bias_add %y2, %c2 : tensor<32x14x14x32xf32>, tensor<32xf32>
  %r2 = tg.relu %y2b : tensor<32x14x14x32xf32>
  %p2 = tg.max_pool2d %r2 {window = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<32x14x14x32xf32>
  %flat = tg.reshape %p2 : tensor<32x7x7x32xf32> -> tensor<32x1568xf32>
  %z = tg.matmul %flat, %w : tensor<32x1568xf32>, tensor<1568x10xf32>
  %logits = tg.bias_add %z, %b : tensor<32x10xf32>, tensor<10xf32>
  return %logits : tensor<32x10xf32>
}
