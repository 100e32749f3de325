// What the lowering cannot handle is an error that names it.
// RUN: amp-opt %s --amp-lower-to-runtime -split-input-file -verify-diagnostics

func.func @unexpanded(%l: tensor<f32>, %w: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{amp-lower-to-runtime: 'tg.gradients' has no runtime lowering: run --tg-autodiff first}}
  %g = tg.gradients %l wrt %w : tensor<f32>, tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

// expected-error @+1 {{amp-lower-to-runtime: arguments and results must be tensors}}
func.func @scalar(%x: f32) -> f32 {
  return %x : f32
}

// -----

// An op of another dialect needs a RuntimeLoweringOpInterface model.
func.func @foreign(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{amp-lower-to-runtime: 'arith.addf' has no runtime lowering (attach amp::RuntimeLoweringOpInterface to give it one; ops with regions are not supported)}}
  %y = arith.addf %x, %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
