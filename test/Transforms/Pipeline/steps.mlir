// --amp-pipeline builds the three steps amp-run compiles from one option
// set: step=mixed (the default), step=f32 (autodiff only: no casts, no loss
// scaling) and step=probed (the f32 step with validation probes where the
// colouring would cast, loss-scaled as the mixed f16 step is, and neither
// for bf16's scaling). probe-gradients returns each optimizer's gradient's
// sum of squares.
// RUN: amp-opt %s --amp-pipeline="step=f32" | FileCheck %s --check-prefix=F32
// RUN: amp-opt %s --amp-pipeline="step=probed probe-gradients=step" | FileCheck %s --check-prefix=PROBED
// RUN: amp-opt %s --amp-pipeline="step=probed precision=bf16" | FileCheck %s --check-prefix=PROBED-BF16
// RUN: amp-opt %s --amp-pipeline="probe-gradients=step" | FileCheck %s --check-prefix=MIXED
// RUN: not amp-opt %s --amp-pipeline="step=half" 2>&1 | FileCheck %s --check-prefix=BAD

// F32-LABEL: func.func @step
// F32-NOT: loss_scale
// F32-NOT: amp.probe
// F32-NOT: f16
// F32-NOT: amp.scale
// F32: tg.sgd_update

// PROBED-LABEL: func.func @step
// PROBED-SAME: tg.role = "loss_scale"
// PROBED-SAME: kind = "result", {{.*}}op = "tg.matmul", precision = "f16"
// PROBED-SAME: kind = "gradient", {{.*}}op = "tg.sgd_update"
// The step itself stays f32; the f16 copy feeds only the probes.
// PROBED: %[[REF:.*]] = tg.matmul %arg1, %arg0 : tensor<8x8xf32>
// PROBED: %[[LOW:.*]] = tg.matmul {{.*}} : tensor<8x8xf16>
// PROBED: amp.numeric_error %[[REF]], %[[LOW]]
// PROBED: tg.tanh %[[REF]]
// PROBED: amp.scale
// PROBED: amp.update_scale

// PROBED-BF16-LABEL: func.func @step
// PROBED-BF16-NOT: loss_scale
// PROBED-BF16: tg.matmul {{.*}} : tensor<8x8xbf16>
// PROBED-BF16-NOT: amp.scale

// The mixed step's gradient probe, as --validate compares it with f32's.
// MIXED-LABEL: func.func @step
// MIXED-SAME: kind = "gradient", {{.*}}op = "tg.sgd_update"
// MIXED-NOT: kind = "result"
// MIXED: tg.matmul {{.*}} : tensor<8x8xf16>

// BAD: for the --step option: Cannot find option named 'half'!
func.func @step(%w: tensor<8x8xf32> {tg.role = "param"}, %x: tensor<8x8xf32> {tg.role = "input"},
                %lr: tensor<f32> {tg.role = "lr"}) -> (tensor<f32> {tg.role = "loss"}, tensor<8x8xf32> {tg.role = "param"}) {
  %y = tg.matmul %x, %w : tensor<8x8xf32>
  %t = tg.tanh %y : tensor<8x8xf32>
  %l = tg.reduce_mean %t {dims = array<i64: 0, 1>} : tensor<8x8xf32>
  %g = tg.gradients %l wrt %w : tensor<f32>, tensor<8x8xf32>
  %w2 = tg.sgd_update %w, %g, %lr : tensor<8x8xf32>
  return %l, %w2 : tensor<f32>, tensor<8x8xf32>
}
