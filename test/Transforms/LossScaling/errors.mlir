// Loss scaling reports what it cannot do, never crashes.
// RUN: amp-opt %s --amp-loss-scaling -split-input-file -verify-diagnostics
// RUN: not amp-opt %s --amp-loss-scaling=mode=sometimes 2>&1 | FileCheck %s --check-prefix=MODE
// RUN: not amp-opt %s --amp-loss-scaling="backoff-factor=1.5" 2>&1 | FileCheck %s --check-prefix=BACKOFF
// RUN: not amp-opt %s --amp-loss-scaling="init-scale=1e9" 2>&1 | FileCheck %s --check-prefix=RANGE
// MODE: for the --mode option: Cannot find option named 'sometimes'!
// BACKOFF: amp-loss-scaling: backoff-factor must be in (0, 1], got 1.500000e+00
// RANGE: amp-loss-scaling: init-scale 1.000000e+09 is outside [min-scale, max-scale] = [1.000000e+00, 1.677722e+07]

// expected-error @+1 {{amp-loss-scaling: no tg.grad_seed in the module}}
module {
  func.func @forward_only(%x: tensor<4xf32>) -> tensor<4xf32> {
    %y = tg.relu %x : tensor<4xf32>
    return %y : tensor<4xf32>
  }
}

// -----

func.func @updates_without_seed(%w: tensor<4xf32>, %g: tensor<4xf32>, %lr: tensor<f32>) -> tensor<4xf32> {
  // expected-error @+1 {{amp-loss-scaling: optimizer updates but no tg.grad_seed}}
  %w2 = tg.sgd_update %w, %g, %lr : tensor<4xf32>
  return %w2 : tensor<4xf32>
}

// -----

func.func @two_seeds(%w: tensor<4xf32>, %lr: tensor<f32>) -> tensor<4xf32> {
  %l = tg.reduce_sum %w {dims = array<i64: 0>} : tensor<4xf32>
  // expected-note @+1 {{first tg.grad_seed here}}
  %s1 = tg.grad_seed %l : tensor<f32>
  // expected-error @+1 {{amp-loss-scaling: more than one tg.grad_seed in one function}}
  %s2 = tg.grad_seed %l : tensor<f32>
  %a = tg.add %s1, %s2 : tensor<f32>
  %g = tg.broadcast_to %a : tensor<f32> -> tensor<4xf32>
  %w2 = tg.sgd_update %w, %g, %lr : tensor<4xf32>
  return %w2 : tensor<4xf32>
}

// -----

// One seed per micro-batch is allowed only as many as amp.micro_batches
// says.
func.func @seeds_not_micro_batches(%w: tensor<4xf32>, %lr: tensor<f32>) -> tensor<4xf32>
    attributes {amp.micro_batches = 3 : i64} {
  %l = tg.reduce_sum %w {dims = array<i64: 0>} : tensor<4xf32>
  // expected-note @+1 {{first tg.grad_seed here}}
  %s1 = tg.grad_seed %l : tensor<f32>
  // expected-error @+1 {{amp-loss-scaling: more than one tg.grad_seed in one function}}
  %s2 = tg.grad_seed %l : tensor<f32>
  %a = tg.add %s1, %s2 : tensor<f32>
  %g = tg.broadcast_to %a : tensor<f32> -> tensor<4xf32>
  %w2 = tg.sgd_update %w, %g, %lr : tensor<4xf32>
  return %w2 : tensor<4xf32>
}

// -----

func.func @no_optimizer(%w: tensor<4xf32>) -> tensor<4xf32> {
  %l = tg.reduce_sum %w {dims = array<i64: 0>} : tensor<4xf32>
  // expected-error @+1 {{amp-loss-scaling: the gradients from this tg.grad_seed reach no optimizer op}}
  %s = tg.grad_seed %l : tensor<f32>
  %g = tg.broadcast_to %s : tensor<f32> -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

// expected-error @+1 {{amp-loss-scaling: this function is already loss-scaled}}
func.func @twice(%w: tensor<4xf32>, %lr: tensor<f32>, %s: tensor<f32> {tg.role = "loss_scale"}) -> tensor<4xf32> {
  %l = tg.reduce_sum %w {dims = array<i64: 0>} : tensor<4xf32>
  %seed = tg.grad_seed %l : tensor<f32>
  %g = tg.broadcast_to %seed : tensor<f32> -> tensor<4xf32>
  %w2 = tg.sgd_update %w, %g, %lr : tensor<4xf32>
  return %w2 : tensor<4xf32>
}
