func.func @train_step(%k: tensor<4x3x3x1xf32> {tg.role = "param", tg.init = "he_normal"},
                      %gamma: tensor<4xf32> {tg.role = "param", tg.init = "ones"},
                      %beta: tensor<4xf32> {tg.role = "param", tg.init = "zeros"},
                      %w: tensor<16x3xf32> {tg.role = "param", tg.init = "glorot_uniform"},
                      %v: tensor<16x3xf32> {tg.role = "opt_state"},
                      %x: tensor<2x4x4x1xf32> {tg.role = "input"},
                      %y: tensor<2xi32> {tg.role = "label"},
                      %lr: tensor<f32> {tg.role = "lr"})
    -> (tensor<f32> {tg.role = "loss"}, tensor<4x3x3x1xf32> {tg.role = "param"},
        tensor<4xf32> {tg.role = "param"}, tensor<4xf32> {tg.role = "param"},
        tensor<16x3xf32> {tg.role = "param"}, tensor<16x3xf32> {tg.role = "opt_state"}) {
  %c = tg.conv2d %x, %k {padding = array<i64: 1, 1, 1, 1>} : tensor<2x4x4x1xf32>, tensor<4x3x3x1xf32>
  %n, %m, %i = tg.batch_norm %c, %gamma, %beta : tensor<2x4x4x4xf32>, tensor<4xf32>
  %r = tg.relu %n : tensor<2x4x4x4xf32>
  %p = tg.max_pool2d %r {window = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<2x4x4x4xf32>
  %f = tg.reshape %p : tensor<2x2x2x4xf32> -> tensor<2x16xf32>
  %z = tg.matmul %f, %w : tensor<2x16xf32>, tensor<16x3xf32>
  %ce = tg.softmax_cross_entropy %z, %y : tensor<2x3xf32>, tensor<2xi32>
  %l = tg.reduce_mean %ce {dims = array<i64: 0>} : tensor<2xf32>
  %g:4 = tg.gradients %l wrt %k, %gamma, %beta, %w : tensor<f32>, tensor<4x3x3x1xf32>, tensor<4xf32>, tensor<4xf32>, tensor<16x3xf32>
  %k2 = tg.sgd_update %k, %g#0, %lr : tensor<4x3x3x1xf32>
  %gamma2 = tg.sgd_update %gamma, %g#1, %lr : tensor<4xf32>
  %beta2 = tg.sgd_update %beta, %g#2, %lr : tensor<4xf32>
  %w2, %v2 = tg.momentum_update %w, %g#3, %v, %lr {momentum = 0.9 : f64} : tensor<16x3xf32>
  return %l, %k2, %gamma2, %beta2, %w2, %v2 : tensor<f32>, tensor<4x3x3x1xf32>, tensor<4xf32>, tensor<4xf32>, tensor<16x3xf32>, tensor<16x3xf32>
}
