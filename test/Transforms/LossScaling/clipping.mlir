// Clipping sees unscaled gradients: the unscale goes before
// tg.clip_by_global_norm and not again after it.
// RUN: amp-opt %s --amp-loss-scaling=mode=static | FileCheck %s

// CHECK-LABEL: func.func @clipped
// CHECK: %[[U1:.*]] = amp.unscale %[[G1:.*]], %{{.*}} : tensor<4xf32>
// CHECK: %[[U2:.*]] = amp.unscale %[[G2:.*]], %{{.*}} : tensor<4xf32>
// CHECK: %[[C:.*]]:2 = tg.clip_by_global_norm %[[U1]], %[[U2]]
// CHECK: tg.sgd_update %{{.*}}, %[[C]]#0,
// CHECK: tg.sgd_update %{{.*}}, %[[C]]#1,
// CHECK-NOT: amp.unscale
func.func @clipped(%a: tensor<4xf32>, %b: tensor<4xf32>, %lr: tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %p = tg.mul %a, %b : tensor<4xf32>
  %l = tg.reduce_sum %p {dims = array<i64: 0>} : tensor<4xf32>
  %seed = tg.grad_seed %l : tensor<f32>
  %d = tg.reshape %seed : tensor<f32> -> tensor<1xf32>
  %db = tg.broadcast_to %d : tensor<1xf32> -> tensor<4xf32>
  %g1 = tg.mul %db, %b : tensor<4xf32>
  %g2 = tg.mul %db, %a : tensor<4xf32>
  %c:2 = tg.clip_by_global_norm %g1, %g2 {max_norm = 1.0 : f64} : tensor<4xf32>, tensor<4xf32>
  %a2 = tg.sgd_update %a, %c#0, %lr : tensor<4xf32>
  %b2 = tg.sgd_update %b, %c#1, %lr : tensor<4xf32>
  return %a2, %b2 : tensor<4xf32>, tensor<4xf32>
}
