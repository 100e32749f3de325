// The FP8 ops reject bad input by name.
// RUN: amp-opt %s -split-input-file -verify-diagnostics

func.func @quantize_shape(%x: tensor<4xbf16>, %s: tensor<f32>) {
  // expected-error @+1 {{'amp.quantize' op cannot change the shape ('tensor<4xbf16>' to 'tensor<8xf8E4M3FN>'); only the element type converts}}
  %q = amp.quantize %x, %s : tensor<4xbf16> to tensor<8xf8E4M3FN>
  return
}

// -----

func.func @quantize_to_bf16(%x: tensor<4xf32>, %s: tensor<f32>) {
  // expected-error @+1 {{'amp.quantize' op result #0 must be ranked tensor of f8E4M3FN type or f8E5M2 type values}}
  %q = amp.quantize %x, %s : tensor<4xf32> to tensor<4xbf16>
  return
}

// -----

func.func @quantize_f64(%x: tensor<4xf64>, %s: tensor<f32>) {
  // expected-error @+1 {{'amp.quantize' op quantizes f32, f16 or bf16 values, got f64}}
  %q = amp.quantize %x, %s : tensor<4xf64> to tensor<4xf8E4M3FN>
  return
}

// -----

func.func @quantize_scale(%x: tensor<4xf32>, %s: tensor<1xf32>) {
  // expected-error @+1 {{'amp.quantize' op operand #1 must be tensor<f32>}}
  %q = "amp.quantize"(%x, %s) : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf8E4M3FN>
  return
}

// -----

func.func @dequantize_from_f16(%q: tensor<4xf16>, %s: tensor<f32>) {
  // expected-error @+1 {{'amp.dequantize' op operand #0 must be ranked tensor of f8E4M3FN type or f8E5M2 type values}}
  %y = amp.dequantize %q, %s : tensor<4xf16> to tensor<4xbf16>
  return
}

// -----

func.func @dequantize_shape(%q: tensor<4xf8E5M2>, %s: tensor<f32>) {
  // expected-error @+1 {{'amp.dequantize' op cannot change the shape}}
  %y = amp.dequantize %q, %s : tensor<4xf8E5M2> to tensor<2x2xbf16>
  return
}

// -----

func.func @scale_format(%h: tensor<16xf32>) {
  // expected-error @+1 {{'amp.fp8_scale' op format must be f8E4M3FN or f8E5M2, got 'f16'}}
  %s = amp.fp8_scale %h {format = f16} : tensor<16xf32>
  return
}

// -----

func.func @scale_margin(%h: tensor<16xf32>) {
  // expected-error @+1 {{'amp.fp8_scale' op margin must be in [0, 64], got -1}}
  %s = amp.fp8_scale %h {format = f8E4M3FN, margin = -1} : tensor<16xf32>
  return
}

// -----

func.func @scale_rank(%h: tensor<4x4xf32>) {
  // expected-error @+1 {{'amp.fp8_scale' op takes an amax history (rank 1) or one amax (rank 0), got 'tensor<4x4xf32>'}}
  %s = amp.fp8_scale %h {format = f8E4M3FN} : tensor<4x4xf32>
  return
}

// -----

func.func @scale_no_format(%h: tensor<4xf32>) {
  // expected-error @+1 {{'amp.fp8_scale' op requires attribute 'format'}}
  %s = "amp.fp8_scale"(%h) : (tensor<4xf32>) -> tensor<f32>
  return
}

// -----

func.func @record_dynamic(%h: tensor<?xf32>, %a: tensor<f32>) {
  // expected-error @+1 {{'amp.record_amax' op takes an amax history of static length >= 1, got 'tensor<?xf32>'}}
  %h2 = amp.record_amax %h, %a : tensor<?xf32>
  return
}

// -----

func.func @record_scalar(%h: tensor<f32>, %a: tensor<f32>) {
  // expected-error @+1 {{'amp.record_amax' op takes an amax history of static length >= 1, got 'tensor<f32>'}}
  %h2 = amp.record_amax %h, %a : tensor<f32>
  return
}

// -----

func.func @amax_int(%x: tensor<4xi32>) {
  // expected-error @+1 {{'amp.amax' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values}}
  %a = amp.amax %x : tensor<4xi32>
  return
}

// -----

func.func @gemm_k(%a: tensor<3x4xf8E4M3FN>, %b: tensor<5x6xf8E4M3FN>, %s: tensor<f32>) {
  // expected-error @+1 {{'amp.scaled_matmul' op contracting dimensions differ: 4 and 5}}
  %c = amp.scaled_matmul %a, %s, %b, %s : tensor<3x4xf8E4M3FN>, tensor<5x6xf8E4M3FN> -> tensor<3x6xbf16>
  return
}

// -----

func.func @gemm_result(%a: tensor<3x4xf8E4M3FN>, %b: tensor<4x6xf8E4M3FN>, %s: tensor<f32>) {
  // expected-error @+1 {{'amp.scaled_matmul' op result must have shape 'tensor<3x6xbf16>', got 'tensor<6x3xbf16>'}}
  %c = amp.scaled_matmul %a, %s, %b, %s : tensor<3x4xf8E4M3FN>, tensor<4x6xf8E4M3FN> -> tensor<6x3xbf16>
  return
}

// -----

func.func @gemm_batch(%a: tensor<2x3x4xf8E4M3FN>, %b: tensor<3x4x6xf8E4M3FN>, %s: tensor<f32>) {
  // expected-error @+1 {{'amp.scaled_matmul' op batch dimensions differ}}
  %c = amp.scaled_matmul %a, %s, %b, %s : tensor<2x3x4xf8E4M3FN>, tensor<3x4x6xf8E4M3FN> -> tensor<2x3x6xbf16>
  return
}

// -----

func.func @gemm_dynamic(%a: tensor<?x4xf8E4M3FN>, %b: tensor<4x6xf8E4M3FN>, %s: tensor<f32>) {
  // expected-error @+1 {{'amp.scaled_matmul' op takes statically shaped tensors}}
  %c = amp.scaled_matmul %a, %s, %b, %s : tensor<?x4xf8E4M3FN>, tensor<4x6xf8E4M3FN> -> tensor<?x6xbf16>
  return
}

// -----

func.func @gemm_bf16_operand(%a: tensor<3x4xbf16>, %b: tensor<4x6xf8E4M3FN>, %s: tensor<f32>) {
  // expected-error @+1 {{'amp.scaled_matmul' op operand #0 must be ranked tensor of f8E4M3FN type or f8E5M2 type values}}
  %c = amp.scaled_matmul %a, %s, %b, %s : tensor<3x4xbf16>, tensor<4x6xf8E4M3FN> -> tensor<3x6xbf16>
  return
}
