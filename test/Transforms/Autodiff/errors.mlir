// Ops without a gradient rule, and unsupported forms, are errors naming the
// op.
// RUN: amp-opt %s --tg-autodiff -split-input-file -verify-diagnostics

func.func @no_rule(%x: tensor<4xf32>, %lr: tensor<f32>) -> tensor<4xf32> {
  // expected-error @+1 {{tg-autodiff: no gradient rule for 'tg.sgd_update' on the path from a tg.gradients loss to its wrt values (it is not differentiable: keep it off that path)}}
  %u = tg.sgd_update %x, %x, %lr : tensor<4xf32>
  %l = tg.reduce_sum %u {dims = array<i64: 0>} : tensor<4xf32>
  %g = tg.gradients %l wrt %x : tensor<f32>, tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

func.func @strided_slice(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{tg-autodiff: gradients of strided tg.slice are not supported}}
  %s = tg.slice %x {offsets = array<i64: 0>, sizes = array<i64: 4>, strides = array<i64: 2>} : tensor<8xf32>
  %l = tg.reduce_sum %s {dims = array<i64: 0>} : tensor<4xf32>
  %g = tg.gradients %l wrt %x : tensor<f32>, tensor<8xf32>
  return %g : tensor<8xf32>
}

// -----

func.func @soft_labels(%z: tensor<4x10xf32>, %p: tensor<4x10xf32>) -> tensor<4x10xf32> {
  // expected-error @+1 {{tg-autodiff: gradients with respect to the labels of tg.softmax_cross_entropy are not supported}}
  %ce = tg.softmax_cross_entropy %z, %p : tensor<4x10xf32>, tensor<4x10xf32>
  %l = tg.reduce_sum %ce {dims = array<i64: 0>} : tensor<4xf32>
  %g = tg.gradients %l wrt %p : tensor<f32>, tensor<4x10xf32>
  return %g : tensor<4x10xf32>
}

// -----

func.func @region(%x: tensor<4xf32>, %p: i1) -> tensor<4xf32> {
  // expected-error @+1 {{tg-autodiff: no gradient rule for 'scf.if' on the path from a tg.gradients loss to its wrt values (attach amp::GradientOpInterface to give it one)}}
  %r = scf.if %p -> (tensor<4xf32>) {
    %e = tg.exp %x : tensor<4xf32>
    scf.yield %e : tensor<4xf32>
  } else {
    scf.yield %x : tensor<4xf32>
  }
  %l = tg.reduce_sum %r {dims = array<i64: 0>} : tensor<4xf32>
  %g = tg.gradients %l wrt %x : tensor<f32>, tensor<4xf32>
  return %g : tensor<4xf32>
}
