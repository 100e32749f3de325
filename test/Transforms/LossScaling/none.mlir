// mode=none leaves the graph alone.
// RUN: amp-opt %s > %t.before
// RUN: amp-opt %s --amp-loss-scaling=mode=none > %t.after
// RUN: diff %t.before %t.after

func.func @step(%w: tensor<4xf32>, %lr: tensor<f32>) -> tensor<4xf32> {
  %l = tg.reduce_sum %w {dims = array<i64: 0>} : tensor<4xf32>
  %seed = tg.grad_seed %l : tensor<f32>
  %g = tg.broadcast_to %seed : tensor<f32> -> tensor<4xf32>
  %w2 = tg.sgd_update %w, %g, %lr : tensor<4xf32>
  return %w2 : tensor<4xf32>
}
