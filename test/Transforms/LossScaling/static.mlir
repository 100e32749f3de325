// mode=static: the seed is scaled by init-scale and every gradient that
// reaches an optimizer op is unscaled in f32 first; nothing else changes.
// RUN: amp-opt %s --amp-loss-scaling="mode=static init-scale=1024" | FileCheck %s

// CHECK-LABEL: func.func @step
// CHECK-SAME: (%[[W:.*]]: tensor<4x4xf32> {tg.role = "param"}, %[[X:.*]]: tensor<4x4xf32> {tg.role = "input"}, %[[LR:.*]]: tensor<f32> {tg.role = "lr"})
// CHECK-SAME: -> (tensor<f32> {tg.role = "loss"}, tensor<4x4xf32> {tg.role = "param"})
// CHECK: %[[S:.*]] = arith.constant dense<1.024000e+03> : tensor<f32>
// CHECK: %[[SEED:.*]] = tg.grad_seed
// CHECK: %[[SC:.*]] = amp.scale %[[SEED]], %[[S]] : tensor<f32>
// CHECK: tg.reshape %[[SC]]
// CHECK: %[[G:.*]] = tg.matmul
// CHECK: %[[U:.*]] = amp.unscale %[[G]], %[[S]] : tensor<4x4xf32>
// CHECK: tg.sgd_update %[[W]], %[[U]], %[[LR]]
// CHECK-NOT: amp.all_finite
// CHECK-NOT: amp.update_scale
func.func @step(%w: tensor<4x4xf32> {tg.role = "param"}, %x: tensor<4x4xf32> {tg.role = "input"},
                %lr: tensor<f32> {tg.role = "lr"}) -> (tensor<f32> {tg.role = "loss"}, tensor<4x4xf32> {tg.role = "param"}) {
  %y = tg.matmul %x, %w : tensor<4x4xf32>
  %l = tg.reduce_sum %y {dims = array<i64: 0, 1>} : tensor<4x4xf32>
  %seed = tg.grad_seed %l : tensor<f32>
  %d = tg.reshape %seed : tensor<f32> -> tensor<1x1xf32>
  %db = tg.broadcast_to %d : tensor<1x1xf32> -> tensor<4x4xf32>
  %g = tg.matmul %x, %db {transpose_a = true} : tensor<4x4xf32>
  %w2 = tg.sgd_update %w, %g, %lr : tensor<4x4xf32>
  return %l, %w2 : tensor<f32>, tensor<4x4xf32>
}
