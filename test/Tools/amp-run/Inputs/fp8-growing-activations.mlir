// An MLP whose first contraction's input starts at 64x the pixels and grows
// 1.0965x a step (100x over 50 steps, ~15000x by step 60) while the function
// stays the same: h = ((x * t) . w1) / t, with t carried step to step. f32
// trains it exactly like the plain MLP; in fp8 the delayed scale of x * t
// must follow the growth, or x * t clips at E4M3's 448 (a scale frozen at
// its first value, or at 1, clips most pixels by step 30) and the loss
// departs from f32's.
func.func @train_step(
    %w1: tensor<784x64xf32> {tg.role = "param", tg.init = "glorot_uniform"},
    %b1: tensor<64xf32> {tg.role = "param", tg.init = "zeros"},
    %w2: tensor<64x10xf32> {tg.role = "param", tg.init = "glorot_uniform"},
    %b2: tensor<10xf32> {tg.role = "param", tg.init = "zeros"},
    %t: tensor<f32> {tg.role = "opt_state", tg.init_value = 64.0 : f32},
    %x: tensor<32x784xf32> {tg.role = "input"},
    %y: tensor<32xi32> {tg.role = "label"},
    %lr: tensor<f32> {tg.role = "lr"})
    -> (tensor<f32> {tg.role = "loss"},
        tensor<784x64xf32> {tg.role = "param"}, tensor<64xf32> {tg.role = "param"},
        tensor<64x10xf32> {tg.role = "param"}, tensor<10xf32> {tg.role = "param"},
        tensor<f32> {tg.role = "opt_state"}) {
  %xt = tg.mul %x, %t : tensor<32x784xf32>, tensor<f32>
  %ht = tg.matmul %xt, %w1 : tensor<32x784xf32>, tensor<784x64xf32>
  %h = tg.div %ht, %t : tensor<32x64xf32>, tensor<f32>
  %hb = tg.bias_add %h, %b1 : tensor<32x64xf32>, tensor<64xf32>
  %a = tg.relu %hb : tensor<32x64xf32>
  %l = tg.matmul %a, %w2 : tensor<32x64xf32>, tensor<64x10xf32>
  %logits = tg.bias_add %l, %b2 : tensor<32x10xf32>, tensor<10xf32>
  %ce = tg.softmax_cross_entropy %logits, %y : tensor<32x10xf32>, tensor<32xi32>
  %loss = tg.reduce_mean %ce {dims = array<i64: 0>} : tensor<32xf32>
  %g:4 = tg.gradients %loss wrt %w1, %b1, %w2, %b2 : tensor<f32>, tensor<784x64xf32>, tensor<64xf32>, tensor<64x10xf32>, tensor<10xf32>
  %w1n = tg.sgd_update %w1, %g#0, %lr : tensor<784x64xf32>
  %b1n = tg.sgd_update %b1, %g#1, %lr : tensor<64xf32>
  %w2n = tg.sgd_update %w2, %g#2, %lr : tensor<64x10xf32>
  %b2n = tg.sgd_update %b2, %g#3, %lr : tensor<10xf32>
  %growth = arith.constant dense<1.0965> : tensor<f32>
  %tn = tg.mul %t, %growth : tensor<f32>, tensor<f32>
  return %loss, %w1n, %b1n, %w2n, %b2n, %tn : tensor<f32>, tensor<784x64xf32>, tensor<64xf32>, tensor<64x10xf32>, tensor<10xf32>, tensor<f32>
}
