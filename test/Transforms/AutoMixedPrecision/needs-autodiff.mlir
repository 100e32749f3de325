// tg.gradients must be expanded first.
// RUN: amp-opt %s --amp-auto-mixed-precision -verify-diagnostics -o /dev/null

func.func @step(%w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %m = tg.matmul %w, %w : tensor<4x4xf32>
  %l = tg.reduce_sum %m {dims = array<i64: 0, 1>} : tensor<4x4xf32>
  // expected-error @+1 {{tg.gradients must be expanded before --amp-auto-mixed-precision: run --tg-autodiff first}}
  %g = tg.gradients %l wrt %w : tensor<f32>, tensor<4x4xf32>
  return %g : tensor<4x4xf32>
}
