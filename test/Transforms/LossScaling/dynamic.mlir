// mode=dynamic (default): the scale and the finite-step counter become
// arguments and results with tg.role; every optimizer result is guarded by
// tg.select(finite, new, old); amp.update_scale carries the options.
// RUN: amp-opt %s --amp-loss-scaling | FileCheck %s
// RUN: amp-opt %s --amp-loss-scaling="growth-factor=4.0 backoff-factor=0.25 growth-interval=10 min-scale=2.0 max-scale=65536.0 init-scale=1024" | FileCheck %s --check-prefix=OPTS

// CHECK-LABEL: func.func @step
// CHECK-SAME: %[[S:[^:]*]]: tensor<f32> {tg.init_value = 6.553600e+04 : f32, tg.role = "loss_scale"}, %[[N:[^:]*]]: tensor<i64> {tg.init_value = 0 : i64, tg.role = "good_steps"})
// CHECK-SAME: -> (tensor<f32> {tg.role = "loss"}, tensor<4x4xf32> {tg.role = "param"}, tensor<4x4xf32> {tg.role = "opt_state"}, tensor<4x4xf32> {tg.role = "opt_state"}, tensor<f32> {tg.role = "loss_scale"}, tensor<i64> {tg.role = "good_steps"}, tensor<i1> {tg.role = "step_applied"})
// CHECK: amp.scale %{{.*}}, %[[S]]
// CHECK: %[[U:.*]] = amp.unscale %{{.*}}, %[[S]] : tensor<4x4xf16>
// CHECK: %[[OK:.*]] = amp.all_finite %[[U]] : tensor<4x4xf32>
// CHECK: %[[P:.*]], %[[M:.*]], %[[V:.*]] = tg.adam_update %{{.*}}, %[[U]],
// CHECK: %[[P2:.*]] = tg.select %[[OK]], %[[P]], %{{.*}} : tensor<i1>, tensor<4x4xf32>
// CHECK: %[[M2:.*]] = tg.select %[[OK]], %[[M]], %{{.*}} : tensor<i1>, tensor<4x4xf32>
// CHECK: %[[V2:.*]] = tg.select %[[OK]], %[[V]], %{{.*}} : tensor<i1>, tensor<4x4xf32>
// CHECK: %[[S2:.*]], %[[N2:.*]] = amp.update_scale %[[S]], %[[N]], %[[OK]]
// CHECK: return %{{.*}}, %[[P2]], %[[M2]], %[[V2]], %[[S2]], %[[N2]]
// The initial scale travels in the IR for hosts to read:
// OPTS: tg.init_value = 1.024000e+03 : f32, tg.role = "loss_scale"
// OPTS: amp.update_scale {{.*}} {backoff_factor = 2.500000e-01 : f64, growth_factor = 4.000000e+00 : f64, growth_interval = 10 : i64, max_scale = 6.553600e+04 : f64, min_scale = 2.000000e+00 : f64}
func.func @step(%w: tensor<4x4xf32> {tg.role = "param"}, %m: tensor<4x4xf32> {tg.role = "opt_state"},
                %v: tensor<4x4xf32> {tg.role = "opt_state"}, %t: tensor<i64> {tg.role = "input"},
                %x: tensor<4x4xf16> {tg.role = "input"}, %lr: tensor<f32> {tg.role = "lr"})
    -> (tensor<f32> {tg.role = "loss"}, tensor<4x4xf32> {tg.role = "param"},
        tensor<4x4xf32> {tg.role = "opt_state"}, tensor<4x4xf32> {tg.role = "opt_state"}) {
  %wh = amp.cast %w : tensor<4x4xf32> to tensor<4x4xf16>
  %y = tg.matmul %x, %wh : tensor<4x4xf16>
  %y32 = amp.cast %y : tensor<4x4xf16> to tensor<4x4xf32>
  %l = tg.reduce_sum %y32 {dims = array<i64: 0, 1>} : tensor<4x4xf32>
  %seed = tg.grad_seed %l : tensor<f32>
  %d = tg.reshape %seed : tensor<f32> -> tensor<1x1xf32>
  %db = tg.broadcast_to %d : tensor<1x1xf32> -> tensor<4x4xf32>
  %dh = amp.cast %db : tensor<4x4xf32> to tensor<4x4xf16>
  %gh = tg.matmul %x, %dh {transpose_a = true} : tensor<4x4xf16>
  %g = amp.cast %gh : tensor<4x4xf16> to tensor<4x4xf32>
  %w2, %m2, %v2 = tg.adam_update %w, %g, %m, %v, %t, %lr : tensor<4x4xf32>
  return %l, %w2, %m2, %v2 : tensor<f32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}
