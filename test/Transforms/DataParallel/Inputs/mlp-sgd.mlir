// A two-layer MLP with SGD, forward only (the tests run the pipeline).
func.func @train_step(
    %w1: tensor<784x128xf32> {tg.role = "param", tg.init = "glorot_uniform"},
    %b1: tensor<128xf32> {tg.role = "param", tg.init = "zeros"},
    %w2: tensor<128x10xf32> {tg.role = "param", tg.init = "glorot_uniform"},
    %x: tensor<32x784xf32> {tg.role = "input"},
    %y: tensor<32xi32> {tg.role = "label"},
    %lr: tensor<f32> {tg.role = "lr"})
    -> (tensor<f32> {tg.role = "loss"}, tensor<784x128xf32> {tg.role = "param"},
        tensor<128xf32> {tg.role = "param"}, tensor<128x10xf32> {tg.role = "param"}) {
  %h = tg.matmul %x, %w1 : tensor<32x784xf32>, tensor<784x128xf32>
  %hb = tg.bias_add %h, %b1 : tensor<32x128xf32>, tensor<128xf32>
  %a = tg.relu %hb : tensor<32x128xf32>
  %logits = tg.matmul %a, %w2 : tensor<32x128xf32>, tensor<128x10xf32>
  %l = tg.softmax_cross_entropy %logits, %y : tensor<32x10xf32>, tensor<32xi32>
  %loss = tg.reduce_mean %l {dims = array<i64: 0>} : tensor<32xf32>
  %d1, %db, %d2 = tg.gradients %loss wrt %w1, %b1, %w2 : tensor<f32>, tensor<784x128xf32>, tensor<128xf32>, tensor<128x10xf32>
  %n1 = tg.sgd_update %w1, %d1, %lr : tensor<784x128xf32>
  %nb = tg.sgd_update %b1, %db, %lr : tensor<128xf32>
  %n2 = tg.sgd_update %w2, %d2, %lr : tensor<128x10xf32>
  return %loss, %n1, %nb, %n2 : tensor<f32>, tensor<784x128xf32>, tensor<128xf32>, tensor<128x10xf32>
}
