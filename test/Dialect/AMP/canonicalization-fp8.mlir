// amp.amax and amp.fp8_scale fold on constants, with the runtime's rules.
// RUN: amp-opt %s -canonicalize | FileCheck %s

// CHECK-LABEL: func.func @amax_of_constant
func.func @amax_of_constant() -> tensor<f32> {
  // CHECK: %[[C:.*]] = arith.constant dense<3.500000e+00> : tensor<f32>
  // CHECK: return %[[C]]
  %c = arith.constant dense<[1.0, -3.5, 2.0]> : tensor<3xf32>
  %a = amp.amax %c : tensor<3xf32>
  return %a : tensor<f32>
}

// CHECK-LABEL: func.func @amax_nan_wins
func.func @amax_nan_wins() -> tensor<f32> {
  // CHECK: arith.constant dense<0x7FC00000> : tensor<f32>
  %c = arith.constant dense<[1.0, 0x7FC00000, 9.0]> : tensor<3xf32>
  %a = amp.amax %c : tensor<3xf32>
  return %a : tensor<f32>
}

// 448 / 3.5 = 128: the largest power of two with 3.5 * s <= 448 is 128.
// CHECK-LABEL: func.func @scale_e4m3
func.func @scale_e4m3() -> tensor<f32> {
  // CHECK: arith.constant dense<1.280000e+02> : tensor<f32>
  %h = arith.constant dense<[3.5, 1.0, 0.0]> : tensor<3xf32>
  %s = amp.fp8_scale %h {format = f8E4M3FN} : tensor<3xf32>
  return %s : tensor<f32>
}

// 57344 / 3.6 = 15929: 2^13 = 8192; margin 1 halves it.
// CHECK-LABEL: func.func @scale_e5m2_margin
func.func @scale_e5m2_margin() -> tensor<f32> {
  // CHECK: arith.constant dense<4.096000e+03> : tensor<f32>
  %h = arith.constant dense<[3.6, 2.0]> : tensor<2xf32>
  %s = amp.fp8_scale %h {format = f8E5M2, margin = 1} : tensor<2xf32>
  return %s : tensor<f32>
}

// An empty history (the first step) scales by 1.
// CHECK-LABEL: func.func @scale_first_step
func.func @scale_first_step() -> tensor<f32> {
  // CHECK: arith.constant dense<1.000000e+00> : tensor<f32>
  %h = arith.constant dense<0.0> : tensor<1024xf32>
  %s = amp.fp8_scale %h {format = f8E4M3FN} : tensor<1024xf32>
  return %s : tensor<f32>
}

// Tiny amax: the scale stops at 2^126.
// CHECK-LABEL: func.func @scale_clamped
func.func @scale_clamped() -> tensor<f32> {
  // CHECK: arith.constant dense<8.50705917E+37> : tensor<f32>
  %h = arith.constant dense<1.0e-40> : tensor<1xf32>
  %s = amp.fp8_scale %h {format = f8E4M3FN} : tensor<1xf32>
  return %s : tensor<f32>
}

// Quantization is lossy: quantize/dequantize never fold away.
// CHECK-LABEL: func.func @qdq_stays
func.func @qdq_stays(%x: tensor<4xbf16>, %s: tensor<f32>) -> tensor<4xbf16> {
  // CHECK: amp.quantize
  // CHECK: amp.dequantize
  %q = amp.quantize %x, %s : tensor<4xbf16> to tensor<4xf8E4M3FN>
  %d = amp.dequantize %q, %s : tensor<4xf8E4M3FN> to tensor<4xbf16>
  return %d : tensor<4xbf16>
}

// A contraction of two dequantized FP8 tensors becomes one FP8 GEMM; the
// dequantized copies die.
// CHECK-LABEL: func.func @fuse_matmul
// CHECK-SAME: (%[[A:.*]]: tensor<32x784xf8E4M3FN>, %[[SA:.*]]: tensor<f32>, %[[B:.*]]: tensor<32x10xf8E5M2>, %[[SB:.*]]: tensor<f32>)
// CHECK-NEXT: %[[C:.*]] = amp.scaled_matmul %[[A]], %[[SA]], %[[B]], %[[SB]] {transpose_a = true} : tensor<32x784xf8E4M3FN>, tensor<32x10xf8E5M2> -> tensor<784x10xbf16>
// CHECK-NEXT: return %[[C]]
func.func @fuse_matmul(%a: tensor<32x784xf8E4M3FN>, %sa: tensor<f32>,
                       %b: tensor<32x10xf8E5M2>, %sb: tensor<f32>) -> tensor<784x10xbf16> {
  %da = amp.dequantize %a, %sa : tensor<32x784xf8E4M3FN> to tensor<32x784xbf16>
  %db = amp.dequantize %b, %sb : tensor<32x10xf8E5M2> to tensor<32x10xbf16>
  %c = tg.matmul %da, %db {transpose_a = true} : tensor<32x784xbf16>, tensor<32x10xbf16>
  return %c : tensor<784x10xbf16>
}

// CHECK-LABEL: func.func @fuse_batch_matmul
// CHECK: amp.scaled_matmul {{.*}} {transpose_b = true} : tensor<4x16x8xf8E4M3FN>, tensor<4x16x8xf8E4M3FN> -> tensor<4x16x16xbf16>
// CHECK-NOT: amp.dequantize
func.func @fuse_batch_matmul(%q: tensor<4x16x8xf8E4M3FN>, %s: tensor<f32>) -> tensor<4x16x16xbf16> {
  %d = amp.dequantize %q, %s : tensor<4x16x8xf8E4M3FN> to tensor<4x16x8xbf16>
  %c = tg.batch_matmul %d, %d {transpose_b = true} : tensor<4x16x8xbf16>, tensor<4x16x8xbf16>
  return %c : tensor<4x16x16xbf16>
}

// One FP8 operand is not an FP8 GEMM: unchanged.
// CHECK-LABEL: func.func @one_dequantized
// CHECK: amp.dequantize
// CHECK: tg.matmul
// CHECK-NOT: amp.scaled_matmul
func.func @one_dequantized(%a: tensor<4x8xf8E4M3FN>, %s: tensor<f32>, %w: tensor<8x2xbf16>) -> tensor<4x2xbf16> {
  %da = amp.dequantize %a, %s : tensor<4x8xf8E4M3FN> to tensor<4x8xbf16>
  %c = tg.matmul %da, %w : tensor<4x8xbf16>, tensor<8x2xbf16>
  return %c : tensor<4x2xbf16>
}
