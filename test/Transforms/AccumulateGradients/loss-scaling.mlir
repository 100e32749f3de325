// RUN: amp-opt %s --amp-pipeline="precision=f16 accumulate=2" 2>/dev/null | FileCheck %s
// RUN: amp-opt %s --amp-pipeline="precision=fp8 accumulate=2" 2>/dev/null | FileCheck %s --check-prefix=FP8
// RUN: amp-opt %s --amp-pipeline="precision=fp8 accumulate=2" 2>/dev/null | grep -c amp.fp8_scale | FileCheck %s --check-prefix=SCALES
// SCALES: {{^}}3{{$}}

// In f16 each micro-batch's seed is scaled by the one loss scale; the f16
// gradients are cast to f32 and summed there, and the mean is unscaled,
// checked and applied once, so an overflow in either micro-batch skips the
// whole step and the scale is updated once.

// CHECK-LABEL: func.func @train_step
// CHECK-SAME: %[[SCALE:[a-z0-9]+]]: tensor<f32> {tg.init_value = 6.553600e+04 : f32, tg.role = "loss_scale"}
// CHECK-SAME: attributes {amp.micro_batches = 2 : i64}
// CHECK: %[[SEED0:.+]] = tg.grad_seed
// CHECK: amp.scale %[[SEED0]], %[[SCALE]]
// CHECK: %[[G0:.+]] = tg.matmul {{.*}}transpose_a = true} : tensor<16x16xf16>
// CHECK: %[[G0F32:.+]] = amp.cast %[[G0]] : tensor<16x16xf16> to tensor<16x16xf32>
// CHECK: %[[SEED1:.+]] = tg.grad_seed
// CHECK: amp.scale %[[SEED1]], %[[SCALE]]
// CHECK: %[[G1:.+]] = tg.matmul {{.*}}transpose_a = true} : tensor<16x16xf16>
// CHECK: %[[G1F32:.+]] = amp.cast %[[G1]] : tensor<16x16xf16> to tensor<16x16xf32>
// CHECK: %[[SUM:.+]] = tg.add %[[G0F32]], %[[G1F32]] : tensor<16x16xf32>
// CHECK: %[[MEAN:.+]] = tg.mul %[[SUM]], %{{.+}} : tensor<16x16xf32>, tensor<f32>
// CHECK: %[[G:.+]] = amp.unscale %[[MEAN]], %[[SCALE]]
// CHECK: %[[FINITE:.+]] = amp.all_finite %[[G]]
// CHECK-NOT: amp.all_finite
// CHECK: amp.update_scale %[[SCALE]], %{{.+}}, %[[FINITE]]
// CHECK-NOT: amp.update_scale

// FP8 delayed scaling: the weight's amax is recorded once per step, each
// activation's and gradient's once per micro-batch, the second micro-batch
// recording into the history the first returned; the scales come from the
// step's incoming histories, once.
// FP8-LABEL: func.func @train_step
// FP8-SAME: %[[W:[a-z0-9]+]]: tensor<16x16xf32> {tg.role = "param"}
// FP8-SAME: %[[H0:[a-z0-9]+]]: tensor<1024xf32> {tg.init_value = 0.000000e+00 : f32, tg.role = "amax_history"}
// FP8-SAME: %[[H1:[a-z0-9]+]]: tensor<1024xf32> {tg.init_value = 0.000000e+00 : f32, tg.role = "amax_history"}
// FP8-SAME: %[[H2:[a-z0-9]+]]: tensor<1024xf32> {tg.init_value = 0.000000e+00 : f32, tg.role = "amax_history"}
// FP8-DAG: %[[RW:.+]] = amp.record_amax %[[H1]],
// FP8-DAG: %[[R0:.+]] = amp.record_amax %[[H0]],
// FP8-DAG: %[[R2:.+]] = amp.record_amax %[[H2]],
// FP8: %[[R0B:.+]] = amp.record_amax %[[R0]],
// FP8: %[[R2B:.+]] = amp.record_amax %[[R2]],
// FP8: return {{.*}}%[[R0B]], %[[RW]], %[[R2B]]

func.func @train_step(%w: tensor<16x16xf32> {tg.role = "param"},
                      %x: tensor<16x16xf32> {tg.role = "input"},
                      %y: tensor<16xi32> {tg.role = "label"},
                      %lr: tensor<f32> {tg.role = "lr"})
    -> (tensor<f32> {tg.role = "loss"}, tensor<16x16xf32> {tg.role = "param"}) {
  %z = tg.matmul %x, %w : tensor<16x16xf32>, tensor<16x16xf32>
  %ce = tg.softmax_cross_entropy %z, %y : tensor<16x16xf32>, tensor<16xi32>
  %loss = tg.reduce_mean %ce {dims = array<i64: 0>} : tensor<16xf32>
  %g = tg.gradients %loss wrt %w : tensor<f32>, tensor<16x16xf32>
  %wn = tg.sgd_update %w, %g, %lr : tensor<16x16xf32>
  return %loss, %wn : tensor<f32>, tensor<16x16xf32>
}
