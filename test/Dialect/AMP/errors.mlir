// Every amp op and attribute rejects bad input by name.
// RUN: amp-opt %s -split-input-file -verify-diagnostics

func.func @cast_shape(%x: tensor<4xf32>) {
  // expected-error @+1 {{'amp.cast' op cannot change the shape ('tensor<4xf32>' to 'tensor<8xf16>'); only the element type converts}}
  %y = amp.cast %x : tensor<4xf32> to tensor<8xf16>
  return
}

// -----

func.func @cast_int(%x: tensor<4xi32>) {
  // expected-error @+1 {{'amp.cast' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values}}
  %y = amp.cast %x : tensor<4xi32> to tensor<4xf16>
  return
}

// -----

func.func @scale_type(%x: tensor<4xf32>, %s: tensor<f16>) {
  // expected-error @+1 {{'amp.scale' op operand #1 must be tensor<f32>}}
  %y = "amp.scale"(%x, %s) : (tensor<4xf32>, tensor<f16>) -> tensor<4xf32>
  return
}

// -----

func.func @unscale_result(%g: tensor<4xf16>, %s: tensor<f32>) {
  // expected-error @+1 {{'amp.unscale' op result #0 must be ranked tensor of 32-bit float or 64-bit float values, but got 'tensor<4xf16>'}}
  %y = "amp.unscale"(%g, %s) : (tensor<4xf16>, tensor<f32>) -> tensor<4xf16>
  return
}

// -----

func.func @all_finite_empty() {
  // expected-error @+1 {{'amp.all_finite' op needs at least one operand}}
  %ok = "amp.all_finite"() : () -> tensor<i1>
  return
}

// -----

func.func @update_scale_backoff(%s: tensor<f32>, %n: tensor<i64>, %ok: tensor<i1>) {
  // expected-error @+1 {{'amp.update_scale' op backoff_factor must be in (0, 1], got 2.000000e+00}}
  %s2, %n2 = amp.update_scale %s, %n, %ok {backoff_factor = 2.0 : f64}
  return
}

// -----

func.func @update_scale_growth(%s: tensor<f32>, %n: tensor<i64>, %ok: tensor<i1>) {
  // expected-error @+1 {{'amp.update_scale' op growth_factor must be a finite value >= 1, got 5.000000e-01}}
  %s2, %n2 = amp.update_scale %s, %n, %ok {growth_factor = 0.5 : f64}
  return
}

// -----

func.func @update_scale_interval(%s: tensor<f32>, %n: tensor<i64>, %ok: tensor<i1>) {
  // expected-error @+1 {{'amp.update_scale' op growth_interval must be >= 1, got 0}}
  %s2, %n2 = amp.update_scale %s, %n, %ok {growth_interval = 0 : i64}
  return
}

// -----

func.func @update_scale_bounds(%s: tensor<f32>, %n: tensor<i64>, %ok: tensor<i1>) {
  // expected-error @+1 {{'amp.update_scale' op scales must satisfy 0 < min_scale <= max_scale < inf, got min_scale 1.000000e+02 and max_scale 1.000000e+01}}
  %s2, %n2 = amp.update_scale %s, %n, %ok {min_scale = 100.0 : f64, max_scale = 10.0 : f64}
  return
}

// -----

func.func @update_scale_types(%s: tensor<f32>, %n: tensor<i32>, %ok: tensor<i1>) {
  // expected-error @+1 {{'amp.update_scale' op operand #1 must be tensor<i64>}}
  %s2, %n2 = "amp.update_scale"(%s, %n, %ok) : (tensor<f32>, tensor<i32>, tensor<i1>) -> (tensor<f32>, tensor<i64>)
  return
}

// -----

func.func @bad_precision(%x: tensor<4xf32>) {
  // expected-error @+1 {{'amp.precision' must be one of "f32", "f16", "bf16", got "fp8"}}
  %y = tg.relu %x {amp.precision = "fp8"} : tensor<4xf32>
  return
}

// -----

func.func @bad_color(%x: tensor<4xf32>) {
  // expected-error @+1 {{'amp.color' must be one of "allow", "infer", "clear", "deny", got "gray"}}
  %y = tg.relu %x {amp.color = "gray"} : tensor<4xf32>
  return
}

// -----

func.func @unknown_attribute(%x: tensor<4xf32>) {
  // expected-error @+1 {{unknown amp attribute 'amp.colour' (expected amp.precision, amp.color, amp.tensor_core_padded or amp.micro_batches)}}
  %y = tg.relu %x {amp.colour = "deny"} : tensor<4xf32>
  return
}

// -----

func.func @bad_padded_sizes(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) {
  // expected-error @+1 {{'amp.tensor_core_padded' must be a dictionary of sizes > 0 by dimension name, got {N = 0 : i64}}}
  %y = tg.matmul %x, %w {amp.tensor_core_padded = {N = 0 : i64}} : tensor<4x8xf32>, tensor<8x8xf32>
  return
}

// -----

func.func @update_scale_negative_interval(%s: tensor<f32>, %n: tensor<i64>, %ok: tensor<i1>) {
  // expected-error @+1 {{'amp.update_scale' op growth_interval must be >= 1, got -5}}
  %s2, %n2 = amp.update_scale %s, %n, %ok {growth_interval = -5 : i64}
  return
}

// -----

// Dynamic dimensions must match too: a cast converts elements only.
func.func @cast_dynamic_shape(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{'amp.cast' op cannot change the shape ('tensor<?x4xf32>' to 'tensor<8x4xf16>'); only the element type converts}}
  %y = amp.cast %x : tensor<?x4xf32> to tensor<8x4xf16>
  return
}

// -----

func.func @cast_unranked(%x: tensor<*xf32>) {
  // expected-error @+1 {{'amp.cast' op operand #0 must be ranked tensor of}}
  %y = "amp.cast"(%x) : (tensor<*xf32>) -> tensor<*xf16>
  return
}

// -----

func.func @numeric_error_shape(%r: tensor<4xf32>, %c: tensor<8xf16>) {
  // expected-error @+1 {{'amp.numeric_error' op compares tensors of one shape, got 'tensor<4xf32>' and 'tensor<8xf16>'}}
  %s = amp.numeric_error %r, %c : tensor<4xf32>, tensor<8xf16> -> tensor<10xf32>
  return
}

// -----

func.func @numeric_error_stats(%r: tensor<4xf32>, %c: tensor<4xf16>) {
  // expected-error @+1 {{'amp.numeric_error' op returns tensor<10xf32>, got 'tensor<9xf32>'}}
  %s = amp.numeric_error %r, %c : tensor<4xf32>, tensor<4xf16> -> tensor<9xf32>
  return
}

// -----

func.func @numeric_error_reference(%r: tensor<4xf16>, %c: tensor<4xf16>) {
  // expected-error @+1 {{'amp.numeric_error' op operand #0 must be ranked tensor of 32-bit float values}}
  %s = "amp.numeric_error"(%r, %c) : (tensor<4xf16>, tensor<4xf16>) -> tensor<10xf32>
  return
}

// -----

// expected-error @+1 {{amp.probe on result #0 must be a dictionary with kind = "result", "arithmetic", "input" or "gradient" and an integer id, got "oops"}}
func.func @probe_attr(%s: tensor<10xf32>) -> (tensor<10xf32> {amp.probe = "oops"}) {
  return %s : tensor<10xf32>
}

// -----

// expected-error @+1 {{unknown amp attribute 'amp.other' on result #0 (expected amp.probe)}}
func.func @probe_name(%s: tensor<10xf32>) -> (tensor<10xf32> {amp.other = 1}) {
  return %s : tensor<10xf32>
}

// -----

// expected-error @+1 {{'amp.micro_batches' must be an integer >= 2, got 1 : i64}}
func.func @one_micro_batch() attributes {amp.micro_batches = 1 : i64} {
  return
}

// -----

func.func @micro_batches_on_an_op(%x: tensor<4xf32>) {
  // expected-error @+1 {{'amp.micro_batches' belongs on a function}}
  %y = tg.relu %x {amp.micro_batches = 2 : i64} : tensor<4xf32>
  return
}
