// What the lowering cannot handle is an error that names it.
// RUN: amp-opt %s --amp-lower-to-runtime -split-input-file -verify-diagnostics

func.func @unexpanded(%l: tensor<f32>, %w: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{amp-lower-to-runtime: 'tg.gradients' has no runtime lowering (tg-autodiff must run first; region ops are not supported)}}
  %g = tg.gradients %l wrt %w : tensor<f32>, tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

// expected-error @+1 {{amp-lower-to-runtime: arguments and results must be tensors}}
func.func @scalar(%x: f32) -> f32 {
  return %x : f32
}
