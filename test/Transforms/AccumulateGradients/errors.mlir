// RUN: amp-opt %s --split-input-file --verify-diagnostics --amp-accumulate-gradients=micro-batches=2
// RUN: not amp-opt %s --split-input-file --amp-accumulate-gradients=micro-batches=0 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: error: amp-accumulate-gradients: micro-batches must be >= 1, got 0

// expected-error @+1 {{amp-accumulate-gradients: the step has no tg.role = "input" or "label" argument to split into micro-batches}}
func.func @no_batch(%w: tensor<4xf32> {tg.role = "param"},
                    %g: tensor<4xf32>, %lr: tensor<f32> {tg.role = "lr"})
    -> tensor<4xf32> {
  %wn = tg.sgd_update %w, %g, %lr : tensor<4xf32>
  return %wn : tensor<4xf32>
}

// -----

// expected-error @+1 {{amp-accumulate-gradients: batch argument 1 has type 'tensor<?x4xf32>'; micro-batches are slices of a static leading dimension}}
func.func @dynamic_batch(%w: tensor<4xf32> {tg.role = "param"},
                         %x: tensor<?x4xf32> {tg.role = "input"},
                         %g: tensor<4xf32>, %lr: tensor<f32> {tg.role = "lr"})
    -> tensor<4xf32> {
  %wn = tg.sgd_update %w, %g, %lr : tensor<4xf32>
  return %wn : tensor<4xf32>
}

// -----

// expected-error @+1 {{amp-accumulate-gradients: the step is already loss-scaled; accumulate first}}
func.func @scaled(%w: tensor<4xf32> {tg.role = "param"},
                  %x: tensor<2x4xf32> {tg.role = "input"},
                  %g: tensor<4xf32>, %lr: tensor<f32> {tg.role = "lr"},
                  %s: tensor<f32> {tg.role = "loss_scale"}) -> tensor<4xf32> {
  %wn = tg.sgd_update %w, %g, %lr : tensor<4xf32>
  return %wn : tensor<4xf32>
}

// -----

// A batch-dependent value that is not a gradient reaches the update (here
// as its learning rate): averaging it would change what the step means.
func.func @batch_learning_rate(%w: tensor<4xf32> {tg.role = "param"},
                               %x: tensor<2x4xf32> {tg.role = "input"},
                               %g: tensor<4xf32>) -> tensor<4xf32> {
  %s = tg.reduce_sum %x {dims = array<i64: 0, 1>} : tensor<2x4xf32>
  // expected-error @+1 {{amp-accumulate-gradients: operand 2 depends on the batch; only an optimizer's gradient and a loss, logits, output or amax_history result may}}
  %wn = tg.sgd_update %w, %g, %s : tensor<4xf32>
  return %wn : tensor<4xf32>
}

// -----

// A per-example result without a role that says how to combine it.
func.func @unnamed_result(%w: tensor<4xf32> {tg.role = "param"},
                          %x: tensor<2x4xf32> {tg.role = "input"},
                          %lr: tensor<f32> {tg.role = "lr"})
    -> (tensor<4xf32>, tensor<2x4xf32>) {
  %y = tg.relu %x : tensor<2x4xf32>
  %g = tg.reduce_sum %y {dims = array<i64: 0>} : tensor<2x4xf32>
  %wn = tg.sgd_update %w, %g, %lr : tensor<4xf32>
  // expected-error @+1 {{amp-accumulate-gradients: operand 1 depends on the batch; only an optimizer's gradient and a loss, logits, output or amax_history result may}}
  return %wn, %y : tensor<4xf32>, tensor<2x4xf32>
}

// -----

// The input itself returned.
func.func @input_returned(%w: tensor<4xf32> {tg.role = "param"},
                          %x: tensor<2x4xf32> {tg.role = "input"},
                          %lr: tensor<f32> {tg.role = "lr"})
    -> (tensor<4xf32>, tensor<2x4xf32> {tg.role = "output"}) {
  %g = tg.reduce_sum %x {dims = array<i64: 0>} : tensor<2x4xf32>
  %wn = tg.sgd_update %w, %g, %lr : tensor<4xf32>
  // expected-error @+1 {{amp-accumulate-gradients: operand 1 depends on the batch; only an optimizer's gradient and a loss, logits, output or amax_history result may}}
  return %wn, %x : tensor<4xf32>, tensor<2x4xf32>
}

// -----

// A value that is both a gradient and a per-example output.
func.func @gradient_and_output(%w: tensor<4xf32> {tg.role = "param"},
                               %x: tensor<2x4xf32> {tg.role = "input"},
                               %lr: tensor<f32> {tg.role = "lr"})
    -> (tensor<4xf32>, tensor<4xf32> {tg.role = "output"}) {
  // expected-error @+1 {{amp-accumulate-gradients: a batch-dependent value leaves the repeated ops both as a gradient or loss and as a per-row result}}
  %g = tg.reduce_sum %x {dims = array<i64: 0>} : tensor<2x4xf32>
  %wn = tg.sgd_update %w, %g, %lr : tensor<4xf32>
  return %wn, %g : tensor<4xf32>, tensor<4xf32>
}
