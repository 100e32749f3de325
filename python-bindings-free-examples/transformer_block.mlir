// A transformer encoder block written forward-only, over Fashion-MNIST
// images read as sequences of 28 rows: a linear row embedding (28 -> 32),
// layer norm, single-head self-attention with batch_matmul and softmax, a
// residual, layer norm, a GELU feed-forward network, a residual, mean
// pooling over tokens, a classifier, softmax cross-entropy and an SGD step
// for every parameter.
//
// RUN: amp-opt %s --amp-pipeline | FileCheck %s
// CHECK-LABEL: func.func @train_step
// CHECK-NOT: tg.gradients
// Attention runs in f16 end to end: both batch matmuls, the scaling and
// the softmax between them.
// CHECK-DAG: tg.batch_matmul {{.*}} {transpose_b = true} : tensor<32x28x32xf16>
// CHECK-DAG: tg.softmax {{.*}} : tensor<32x28x28xf16>
// CHECK-DAG: tg.batch_matmul {{.*}} : tensor<32x28x28xf16>, tensor<32x28x32xf16>
// Layer norm keeps f32 statistics; GELU sits between two f16 matmuls.
// CHECK-DAG: tg.layer_norm {{.*}} : tensor<32x28x32xf16>, tensor<32xf32>
// CHECK-DAG: tg.gelu {{.*}} : tensor<896x64xf16>
// CHECK-DAG: tg.gelu_grad {{.*}} : tensor<896x64xf16>
// CHECK-DAG: tg.softmax_grad {{.*}} : tensor<32x28x28xf16>
// CHECK-DAG: tg.layer_norm_grad {{.*}} : tensor<32x28x32xf16>, tensor<32xf32>, tensor<32x28xf32>
// CHECK: amp.all_finite
// CHECK-COUNT-14: tg.sgd_update
// CHECK: amp.update_scale

// predict is the same forward pass for amp-run's test accuracy.
// CHECK-LABEL: func.func @predict
// CHECK-NOT: amp.scale
// CHECK: tg.softmax {{.*}} : tensor<32x28x28xf16>
// CHECK: return {{.*}} : tensor<32x10xf32>

func.func @train_step(
    %we: tensor<28x32xf32> {tg.role = "param", tg.init = "glorot_uniform"},
    %g1: tensor<32xf32> {tg.role = "param", tg.init = "ones"},
    %be1: tensor<32xf32> {tg.role = "param", tg.init = "zeros"},
    %wq: tensor<32x32xf32> {tg.role = "param", tg.init = "glorot_uniform"},
    %wk: tensor<32x32xf32> {tg.role = "param", tg.init = "glorot_uniform"},
    %wv: tensor<32x32xf32> {tg.role = "param", tg.init = "glorot_uniform"},
    %wo: tensor<32x32xf32> {tg.role = "param", tg.init = "glorot_uniform"},
    %g2: tensor<32xf32> {tg.role = "param", tg.init = "ones"},
    %be2: tensor<32xf32> {tg.role = "param", tg.init = "zeros"},
    %w1: tensor<32x64xf32> {tg.role = "param", tg.init = "glorot_uniform"},
    %b1: tensor<64xf32> {tg.role = "param", tg.init = "zeros"},
    %w2: tensor<64x32xf32> {tg.role = "param", tg.init = "glorot_uniform"},
    %b2: tensor<32xf32> {tg.role = "param", tg.init = "zeros"},
    %wc: tensor<32x10xf32> {tg.role = "param", tg.init = "glorot_uniform"},
    %x: tensor<32x28x28xf32> {tg.role = "input"},
    %y: tensor<32xi32> {tg.role = "label"},
    %lr: tensor<f32> {tg.role = "lr"})
    -> (tensor<f32> {tg.role = "loss"},
        tensor<28x32xf32> {tg.role = "param"},
        tensor<32xf32> {tg.role = "param"},
        tensor<32xf32> {tg.role = "param"},
        tensor<32x32xf32> {tg.role = "param"},
        tensor<32x32xf32> {tg.role = "param"},
        tensor<32x32xf32> {tg.role = "param"},
        tensor<32x32xf32> {tg.role = "param"},
        tensor<32xf32> {tg.role = "param"},
        tensor<32xf32> {tg.role = "param"},
        tensor<32x64xf32> {tg.role = "param"},
        tensor<64xf32> {tg.role = "param"},
        tensor<64x32xf32> {tg.role = "param"},
        tensor<32xf32> {tg.role = "param"},
        tensor<32x10xf32> {tg.role = "param"}) {
  // Rows become tokens.
  %xf = tg.reshape %x : tensor<32x28x28xf32> -> tensor<896x28xf32>
  %e2 = tg.matmul %xf, %we : tensor<896x28xf32>, tensor<28x32xf32>
  %e = tg.reshape %e2 : tensor<896x32xf32> -> tensor<32x28x32xf32>
  // Attention.
  %n1, %mu1, %is1 = tg.layer_norm %e, %g1, %be1 : tensor<32x28x32xf32>, tensor<32xf32>
  %flat = tg.reshape %n1 : tensor<32x28x32xf32> -> tensor<896x32xf32>
  %q2 = tg.matmul %flat, %wq : tensor<896x32xf32>, tensor<32x32xf32>
  %k2 = tg.matmul %flat, %wk : tensor<896x32xf32>, tensor<32x32xf32>
  %v2 = tg.matmul %flat, %wv : tensor<896x32xf32>, tensor<32x32xf32>
  %q = tg.reshape %q2 : tensor<896x32xf32> -> tensor<32x28x32xf32>
  %k = tg.reshape %k2 : tensor<896x32xf32> -> tensor<32x28x32xf32>
  %v = tg.reshape %v2 : tensor<896x32xf32> -> tensor<32x28x32xf32>
  %s = tg.batch_matmul %q, %k {transpose_b = true} : tensor<32x28x32xf32>
  %scale = arith.constant dense<0.17677669> : tensor<f32>
  %ss = tg.mul %s, %scale : tensor<32x28x28xf32>, tensor<f32>
  %p = tg.softmax %ss : tensor<32x28x28xf32>
  %o = tg.batch_matmul %p, %v : tensor<32x28x28xf32>, tensor<32x28x32xf32>
  %o2 = tg.reshape %o : tensor<32x28x32xf32> -> tensor<896x32xf32>
  %proj = tg.matmul %o2, %wo : tensor<896x32xf32>, tensor<32x32xf32>
  %proj3 = tg.reshape %proj : tensor<896x32xf32> -> tensor<32x28x32xf32>
  %h = tg.add %e, %proj3 : tensor<32x28x32xf32>
  // Feed-forward.
  %n2, %mu2, %is2 = tg.layer_norm %h, %g2, %be2 : tensor<32x28x32xf32>, tensor<32xf32>
  %n2f = tg.reshape %n2 : tensor<32x28x32xf32> -> tensor<896x32xf32>
  %f1 = tg.matmul %n2f, %w1 : tensor<896x32xf32>, tensor<32x64xf32>
  %f1b = tg.bias_add %f1, %b1 : tensor<896x64xf32>, tensor<64xf32>
  %f1g = tg.gelu %f1b : tensor<896x64xf32>
  %f2 = tg.matmul %f1g, %w2 : tensor<896x64xf32>, tensor<64x32xf32>
  %f2b = tg.bias_add %f2, %b2 : tensor<896x32xf32>, tensor<32xf32>
  %f3 = tg.reshape %f2b : tensor<896x32xf32> -> tensor<32x28x32xf32>
  %out = tg.add %h, %f3 : tensor<32x28x32xf32>
  // Classifier on the mean token.
  %pooled = tg.reduce_mean %out {dims = array<i64: 1>} : tensor<32x28x32xf32>
  %logits = tg.matmul %pooled, %wc : tensor<32x32xf32>, tensor<32x10xf32>
  %ce = tg.softmax_cross_entropy %logits, %y : tensor<32x10xf32>, tensor<32xi32>
  %loss = tg.reduce_mean %ce {dims = array<i64: 0>} : tensor<32xf32>
  %g:14 = tg.gradients %loss wrt %we, %g1, %be1, %wq, %wk, %wv, %wo, %g2, %be2, %w1, %b1, %w2, %b2, %wc
      : tensor<f32>, tensor<28x32xf32>, tensor<32xf32>, tensor<32xf32>,
        tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>,
        tensor<32xf32>, tensor<32xf32>, tensor<32x64xf32>, tensor<64xf32>,
        tensor<64x32xf32>, tensor<32xf32>, tensor<32x10xf32>
  %u0 = tg.sgd_update %we, %g#0, %lr : tensor<28x32xf32>
  %u1 = tg.sgd_update %g1, %g#1, %lr : tensor<32xf32>
  %u2 = tg.sgd_update %be1, %g#2, %lr : tensor<32xf32>
  %u3 = tg.sgd_update %wq, %g#3, %lr : tensor<32x32xf32>
  %u4 = tg.sgd_update %wk, %g#4, %lr : tensor<32x32xf32>
  %u5 = tg.sgd_update %wv, %g#5, %lr : tensor<32x32xf32>
  %u6 = tg.sgd_update %wo, %g#6, %lr : tensor<32x32xf32>
  %u7 = tg.sgd_update %g2, %g#7, %lr : tensor<32xf32>
  %u8 = tg.sgd_update %be2, %g#8, %lr : tensor<32xf32>
  %u9 = tg.sgd_update %w1, %g#9, %lr : tensor<32x64xf32>
  %u10 = tg.sgd_update %b1, %g#10, %lr : tensor<64xf32>
  %u11 = tg.sgd_update %w2, %g#11, %lr : tensor<64x32xf32>
  %u12 = tg.sgd_update %b2, %g#12, %lr : tensor<32xf32>
  %u13 = tg.sgd_update %wc, %g#13, %lr : tensor<32x10xf32>
  return %loss, %u0, %u1, %u2, %u3, %u4, %u5, %u6, %u7, %u8, %u9, %u10, %u11, %u12, %u13
      : tensor<f32>, tensor<28x32xf32>, tensor<32xf32>, tensor<32xf32>,
        tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>,
        tensor<32xf32>, tensor<32xf32>, tensor<32x64xf32>, tensor<64xf32>,
        tensor<64x32xf32>, tensor<32xf32>, tensor<32x10xf32>
}

func.func @predict(
    %we: tensor<28x32xf32>,
    %g1: tensor<32xf32>,
    %be1: tensor<32xf32>,
    %wq: tensor<32x32xf32>,
    %wk: tensor<32x32xf32>,
    %wv: tensor<32x32xf32>,
    %wo: tensor<32x32xf32>,
    %g2: tensor<32xf32>,
    %be2: tensor<32xf32>,
    %w1: tensor<32x64xf32>,
    %b1: tensor<64xf32>,
    %w2: tensor<64x32xf32>,
    %b2: tensor<32xf32>,
    %wc: tensor<32x10xf32>,
    %x: tensor<32x28x28xf32> {tg.role = "input"})
    -> (tensor<32x10xf32> {tg.role = "logits"}) {
  // Rows become tokens.
  %xf = tg.reshape %x : tensor<32x28x28xf32> -> tensor<896x28xf32>
  %e2 = tg.matmul %xf, %we : tensor<896x28xf32>, tensor<28x32xf32>
  %e = tg.reshape %e2 : tensor<896x32xf32> -> tensor<32x28x32xf32>
  // Attention.
  %n1, %mu1, %is1 = tg.layer_norm %e, %g1, %be1 : tensor<32x28x32xf32>, tensor<32xf32>
  %flat = tg.reshape %n1 : tensor<32x28x32xf32> -> tensor<896x32xf32>
  %q2 = tg.matmul %flat, %wq : tensor<896x32xf32>, tensor<32x32xf32>
  %k2 = tg.matmul %flat, %wk : tensor<896x32xf32>, tensor<32x32xf32>
  %v2 = tg.matmul %flat, %wv : tensor<896x32xf32>, tensor<32x32xf32>
  %q = tg.reshape %q2 : tensor<896x32xf32> -> tensor<32x28x32xf32>
  %k = tg.reshape %k2 : tensor<896x32xf32> -> tensor<32x28x32xf32>
  %v = tg.reshape %v2 : tensor<896x32xf32> -> tensor<32x28x32xf32>
  %s = tg.batch_matmul %q, %k {transpose_b = true} : tensor<32x28x32xf32>
  %scale = arith.constant dense<0.17677669> : tensor<f32>
  %ss = tg.mul %s, %scale : tensor<32x28x28xf32>, tensor<f32>
  %p = tg.softmax %ss : tensor<32x28x28xf32>
  %o = tg.batch_matmul %p, %v : tensor<32x28x28xf32>, tensor<32x28x32xf32>
  %o2 = tg.reshape %o : tensor<32x28x32xf32> -> tensor<896x32xf32>
  %proj = tg.matmul %o2, %wo : tensor<896x32xf32>, tensor<32x32xf32>
  %proj3 = tg.reshape %proj : tensor<896x32xf32> -> tensor<32x28x32xf32>
  %h = tg.add %e, %proj3 : tensor<32x28x32xf32>
  // Feed-forward.
  %n2, %mu2, %is2 = tg.layer_norm %h, %g2, %be2 : tensor<32x28x32xf32>, tensor<32xf32>
  %n2f = tg.reshape %n2 : tensor<32x28x32xf32> -> tensor<896x32xf32>
  %f1 = tg.matmul %n2f, %w1 : tensor<896x32xf32>, tensor<32x64xf32>
  %f1b = tg.bias_add %f1, %b1 : tensor<896x64xf32>, tensor<64xf32>
  %f1g = tg.gelu %f1b : tensor<896x64xf32>
  %f2 = tg.matmul %f1g, %w2 : tensor<896x64xf32>, tensor<64x32xf32>
  %f2b = tg.bias_add %f2, %b2 : tensor<896x32xf32>, tensor<32xf32>
  %f3 = tg.reshape %f2b : tensor<896x32xf32> -> tensor<32x28x32xf32>
  %out = tg.add %h, %f3 : tensor<32x28x32xf32>
  // Classifier on the mean token.
  %pooled = tg.reduce_mean %out {dims = array<i64: 1>} : tensor<32x28x32xf32>
  %logits = tg.matmul %pooled, %wc : tensor<32x32xf32>, tensor<32x10xf32>
  return %logits : tensor<32x10xf32>
}
