// Reduction, shape, embedding, autodiff and optimizer ops reject bad
// attributes and operands by name.
// RUN: amp-opt %s -split-input-file -verify-diagnostics

func.func @reduce_sum_dim_range(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'tg.reduce_sum' op dim 2 is out of range for rank 2 (expected [-2, 2))}}
  %y = tg.reduce_sum %x {dims = array<i64: 2>} : tensor<4x8xf32>
  return
}

// -----

func.func @reduce_mean_repeat(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'tg.reduce_mean' op dims names dimension 1 twice}}
  %y = tg.reduce_mean %x {dims = array<i64: 1, -1>} : tensor<4x8xf32>
  return
}

// -----

func.func @reduce_max_missing_dims(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'tg.reduce_max' op requires attribute 'dims'}}
  %y = tg.reduce_max %x : tensor<4x8xf32>
  return
}

// -----

func.func @reshape_count(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'tg.reshape' op cannot reshape 4x8 (32 elements) to 5x8 (40 elements)}}
  %y = tg.reshape %x : tensor<4x8xf32> -> tensor<5x8xf32>
  return
}

// -----

func.func @reshape_type(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'tg.reshape' op cannot change the element type ('f32' to 'f16'); use amp.cast}}
  %y = tg.reshape %x : tensor<4x8xf32> -> tensor<32xf16>
  return
}

// -----

func.func @broadcast_to_shape(%x: tensor<3xf32>) {
  // expected-error @+1 {{'tg.broadcast_to' op cannot broadcast 3 to 4x4}}
  %y = tg.broadcast_to %x : tensor<3xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @broadcast_to_shrink(%x: tensor<4x4xf32>) {
  // expected-error @+1 {{'tg.broadcast_to' op cannot broadcast 4x4 to 4}}
  %y = tg.broadcast_to %x : tensor<4x4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @transpose_perm(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'tg.transpose' op perm [0x0] is not a permutation of 2 dimensions}}
  %y = tg.transpose %x {perm = array<i64: 0, 0>} : tensor<4x8xf32>
  return
}

// -----

func.func @transpose_perm_length(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'tg.transpose' op perm [1x0x2] is not a permutation of 2 dimensions}}
  %y = tg.transpose %x {perm = array<i64: 1, 0, 2>} : tensor<4x8xf32>
  return
}

// -----

func.func @concat_mismatch(%a: tensor<4x8xf32>, %b: tensor<5x8xf32>) {
  // expected-error @+1 {{'tg.concat' op operand 1 differs from operand 0 in dimension 0, which is not the axis}}
  %y = tg.concat %a, %b : tensor<4x8xf32>, tensor<5x8xf32>
  return
}

// -----

func.func @concat_types(%a: tensor<4x8xf32>, %b: tensor<4x8xf16>) {
  // expected-error @+1 {{'tg.concat' op operand 1 (tensor<4x8xf16>) must match operand 0's rank and element type}}
  %y = tg.concat %a, %b : tensor<4x8xf32>, tensor<4x8xf16>
  return
}

// -----

func.func @concat_axis(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'tg.concat' op axis 2 is out of range for rank 2}}
  %y = tg.concat %a, %a {axis = 2 : i64} : tensor<4x8xf32>, tensor<4x8xf32>
  return
}

// -----

func.func @slice_bounds(%x: tensor<8x16xf32>) {
  // expected-error @+1 {{'tg.slice' op window of dimension 1 (offset 4, size 8, stride 2) exceeds its extent 16}}
  %y = tg.slice %x {offsets = array<i64: 0, 4>, sizes = array<i64: 8, 8>, strides = array<i64: 1, 2>} : tensor<8x16xf32>
  return
}

// -----

func.func @slice_length(%x: tensor<8x16xf32>) {
  // expected-error @+1 {{'tg.slice' op offsets, sizes and strides must each have 2 entries (the input rank)}}
  %y = tg.slice %x {offsets = array<i64: 0>, sizes = array<i64: 8>} : tensor<8x16xf32>
  return
}

// -----

func.func @slice_stride(%x: tensor<8x16xf32>) {
  // expected-error @+1 {{'tg.slice' op dimension 0 needs offset >= 0, size >= 1 and stride >= 1}}
  %y = tg.slice %x {offsets = array<i64: 0, 0>, sizes = array<i64: 8, 8>, strides = array<i64: 0, 1>} : tensor<8x16xf32>
  return
}

// -----

func.func @pad_negative(%x: tensor<8x16xf32>) {
  // expected-error @+1 {{'tg.pad' op padding must be non-negative}}
  %y = tg.pad %x {low = array<i64: 0, -1>, high = array<i64: 0, 0>} : tensor<8x16xf32>
  return
}

// -----

func.func @pad_length(%x: tensor<8x16xf32>) {
  // expected-error @+1 {{'tg.pad' op low and high must each have 2 entries (the input rank)}}
  %y = tg.pad %x {low = array<i64: 1>, high = array<i64: 1>} : tensor<8x16xf32>
  return
}

// -----

func.func @gather_indices_type(%t: tensor<10x4xf32>, %i: tensor<3xf32>) {
  // expected-error @+1 {{'tg.gather' op operand #1 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values}}
  %y = tg.gather %t, %i : tensor<10x4xf32>, tensor<3xf32>
  return
}

// -----

func.func @gather_table_rank(%t: tensor<f32>, %i: tensor<3xi32>) {
  // expected-error @+1 {{'tg.gather' op table must have rank >= 1}}
  %y = tg.gather %t, %i : tensor<f32>, tensor<3xi32>
  return
}

// -----

func.func @gather_grad_shape(%dy: tensor<4x8xf32>, %i: tensor<3xi32>) {
  // expected-error @+1 {{'tg.gather_grad' op dy (4x8) must start with the indices' shape (3)}}
  %y = tg.gather_grad %dy, %i {num_rows = 10 : i64} : tensor<4x8xf32>, tensor<3xi32>
  return
}

// -----

func.func @gather_grad_rows(%dy: tensor<3x8xf32>, %i: tensor<3xi32>) {
  // expected-error @+1 {{'tg.gather_grad' op num_rows must be >= 1, got 0}}
  %y = tg.gather_grad %dy, %i {num_rows = 0 : i64} : tensor<3x8xf32>, tensor<3xi32>
  return
}

// -----

func.func @grad_seed_int(%l: tensor<i32>) {
  // expected-error @+1 {{'tg.grad_seed' op operand #0 must be statically shaped tensor of 16-bit float}}
  %s = tg.grad_seed %l : tensor<i32>
  return
}

// -----

func.func @gradients_empty(%l: tensor<f32>) {
  // expected-error @+1 {{'tg.gradients' op needs at least one value to differentiate with respect to}}
  "tg.gradients"(%l) : (tensor<f32>) -> ()
  return
}

// -----

func.func @gradients_result_types(%l: tensor<f32>, %w: tensor<4xf32>) {
  // expected-error @+2 {{'tg.gradients' op failed to infer returned types}}
  // expected-error @+1 {{'tg.gradients' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<5xf32>'}}
  %g = "tg.gradients"(%l, %w) : (tensor<f32>, tensor<4xf32>) -> tensor<5xf32>
  return
}

// -----

func.func @sgd_update_f16(%w: tensor<4xf16>, %lr: tensor<f32>) {
  // expected-error @+1 {{'tg.sgd_update' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float values}}
  %n = tg.sgd_update %w, %w, %lr : tensor<4xf16>
  return
}

// -----

func.func @sgd_update_lr(%w: tensor<4xf32>, %lr: tensor<1xf32>) {
  // expected-error @+1 {{'tg.sgd_update' op operand #2 must be tensor<f32>}}
  %n = "tg.sgd_update"(%w, %w, %lr) : (tensor<4xf32>, tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @sgd_update_types(%w: tensor<4xf32>, %g: tensor<5xf32>, %lr: tensor<f32>) {
  // expected-error @+1 {{'tg.sgd_update' op failed to verify that all of {param, grad, new_param} have same type}}
  %n = "tg.sgd_update"(%w, %g, %lr) : (tensor<4xf32>, tensor<5xf32>, tensor<f32>) -> tensor<4xf32>
  return
}

// -----

func.func @momentum_negative(%w: tensor<4xf32>, %lr: tensor<f32>) {
  // expected-error @+1 {{'tg.momentum_update' op momentum must be >= 0, got -5.000000e-01}}
  %n, %v = tg.momentum_update %w, %w, %w, %lr {momentum = -0.5 : f64} : tensor<4xf32>
  return
}

// -----

func.func @momentum_weight_decay_negative(%w: tensor<4xf32>, %lr: tensor<f32>) {
  // expected-error @+1 {{'tg.momentum_update' op weight_decay must be finite and >= 0, got -1.000000e-04}}
  %n, %v = tg.momentum_update %w, %w, %w, %lr {weight_decay = -1.0e-4 : f64} : tensor<4xf32>
  return
}

// -----

func.func @adam_beta(%w: tensor<4xf32>, %s: tensor<i64>, %lr: tensor<f32>) {
  // expected-error @+1 {{'tg.adam_update' op beta2 must be in [0, 1), got 1.000000e+00}}
  %n, %m, %v = tg.adam_update %w, %w, %w, %w, %s, %lr {beta2 = 1.0 : f64} : tensor<4xf32>
  return
}

// -----

func.func @adam_step_type(%w: tensor<4xf32>, %s: tensor<i32>, %lr: tensor<f32>) {
  // expected-error @+1 {{'tg.adam_update' op operand #4 must be tensor<i64>}}
  %n, %m, %v = "tg.adam_update"(%w, %w, %w, %w, %s, %lr) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @clip_max_norm(%g: tensor<4xf32>) {
  // expected-error @+1 {{'tg.clip_by_global_norm' op max_norm must be > 0, got 0.000000e+00}}
  %c = tg.clip_by_global_norm %g {max_norm = 0.0 : f64} : tensor<4xf32>
  return
}

// -----

func.func @clip_missing_norm(%g: tensor<4xf32>) {
  // expected-error @+1 {{'tg.clip_by_global_norm' op requires attribute 'max_norm'}}
  %c = tg.clip_by_global_norm %g : tensor<4xf32>
  return
}

// -----

func.func @gather_grad_negative_rows(%dy: tensor<3x8xf32>, %i: tensor<3xi32>) {
  // expected-error @+1 {{'tg.gather_grad' op num_rows must be >= 1, got -2}}
  %y = tg.gather_grad %dy, %i {num_rows = -2 : i64} : tensor<3x8xf32>, tensor<3xi32>
  return
}
