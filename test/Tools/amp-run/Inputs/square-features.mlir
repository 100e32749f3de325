// A model built to break in f16 for amp-run --validate: raw pixel values
// (0..255) go through a linear layer whose outputs are squared (quadratic
// features) and scaled back down before the classifier. In f32 it trains;
// in f16 the precision pass puts the square between the two matmuls, and
// squares of pre-activations above 256 overflow f16's 65504.
func.func @train_step(
    %w1: tensor<784x64xf32> {tg.role = "param", tg.init = "glorot_uniform"},
    %b1: tensor<64xf32> {tg.role = "param", tg.init = "zeros"},
    %w2: tensor<64x10xf32> {tg.role = "param", tg.init = "glorot_uniform"},
    %b2: tensor<10xf32> {tg.role = "param", tg.init = "zeros"},
    %x: tensor<32x784xf32> {tg.role = "input"},
    %y: tensor<32xi32> {tg.role = "label"},
    %lr: tensor<f32> {tg.role = "lr"})
    -> (tensor<f32> {tg.role = "loss"},
        tensor<784x64xf32> {tg.role = "param"},
        tensor<64xf32> {tg.role = "param"},
        tensor<64x10xf32> {tg.role = "param"},
        tensor<10xf32> {tg.role = "param"}) {
  %pixels = arith.constant dense<255.0> : tensor<f32>
  %down = arith.constant dense<6.103515625e-05> : tensor<f32>
  %xr = tg.mul %x, %pixels : tensor<32x784xf32>, tensor<f32>
  %h = tg.matmul %xr, %w1 : tensor<32x784xf32>, tensor<784x64xf32>
  %hb = tg.bias_add %h, %b1 : tensor<32x64xf32>, tensor<64xf32>
  %q = tg.square %hb : tensor<32x64xf32>
  %qs = tg.mul %q, %down : tensor<32x64xf32>, tensor<f32>
  %l = tg.matmul %qs, %w2 : tensor<32x64xf32>, tensor<64x10xf32>
  %logits = tg.bias_add %l, %b2 : tensor<32x10xf32>, tensor<10xf32>
  %ce = tg.softmax_cross_entropy %logits, %y : tensor<32x10xf32>, tensor<32xi32>
  %loss = tg.reduce_mean %ce {dims = array<i64: 0>} : tensor<32xf32>
  %g:4 = tg.gradients %loss wrt %w1, %b1, %w2, %b2
      : tensor<f32>, tensor<784x64xf32>, tensor<64xf32>, tensor<64x10xf32>, tensor<10xf32>
  %w1n = tg.sgd_update %w1, %g#0, %lr : tensor<784x64xf32>
  %b1n = tg.sgd_update %b1, %g#1, %lr : tensor<64xf32>
  %w2n = tg.sgd_update %w2, %g#2, %lr : tensor<64x10xf32>
  %b2n = tg.sgd_update %b2, %g#3, %lr : tensor<10xf32>
  return %loss, %w1n, %b1n, %w2n, %b2n
      : tensor<f32>, tensor<784x64xf32>, tensor<64xf32>, tensor<64x10xf32>, tensor<10xf32>
}

func.func @predict(
    %w1: tensor<784x64xf32> {tg.role = "param"},
    %b1: tensor<64xf32> {tg.role = "param"},
    %w2: tensor<64x10xf32> {tg.role = "param"},
    %b2: tensor<10xf32> {tg.role = "param"},
    %x: tensor<32x784xf32> {tg.role = "input"})
    -> (tensor<32x10xf32> {tg.role = "logits"}) {
  %pixels = arith.constant dense<255.0> : tensor<f32>
  %down = arith.constant dense<6.103515625e-05> : tensor<f32>
  %xr = tg.mul %x, %pixels : tensor<32x784xf32>, tensor<f32>
  %h = tg.matmul %xr, %w1 : tensor<32x784xf32>, tensor<784x64xf32>
  %hb = tg.bias_add %h, %b1 : tensor<32x64xf32>, tensor<64xf32>
  %q = tg.square %hb : tensor<32x64xf32>
  %qs = tg.mul %q, %down : tensor<32x64xf32>, tensor<f32>
  %l = tg.matmul %qs, %w2 : tensor<32x64xf32>, tensor<64x10xf32>
  %logits = tg.bias_add %l, %b2 : tensor<32x10xf32>, tensor<10xf32>
  return %logits : tensor<32x10xf32>
}
