// The FP8 ops print and parse back, in custom and generic form.
// RUN: amp-opt %s | amp-opt | FileCheck %s
// RUN: amp-opt %s --mlir-print-op-generic | amp-opt | FileCheck %s

// CHECK-LABEL: func.func @delayed
func.func @delayed(%x: tensor<?x16xbf16>, %h: tensor<1024xf32>)
    -> (tensor<?x16xbf16>, tensor<1024xf32>) {
  // CHECK: %[[S:.*]] = amp.fp8_scale %{{.*}} {format = f8E4M3FN} : tensor<1024xf32>
  %s = amp.fp8_scale %h {format = f8E4M3FN} : tensor<1024xf32>
  // CHECK: %[[Q:.*]] = amp.quantize %{{.*}}, %[[S]] : tensor<?x16xbf16> to tensor<?x16xf8E4M3FN>
  %q = amp.quantize %x, %s : tensor<?x16xbf16> to tensor<?x16xf8E4M3FN>
  // CHECK: amp.dequantize %[[Q]], %[[S]] : tensor<?x16xf8E4M3FN> to tensor<?x16xbf16>
  %d = amp.dequantize %q, %s : tensor<?x16xf8E4M3FN> to tensor<?x16xbf16>
  // CHECK: %[[A:.*]] = amp.amax %{{.*}} : tensor<?x16xbf16>
  %a = amp.amax %x : tensor<?x16xbf16>
  // CHECK: amp.record_amax %{{.*}}, %[[A]] : tensor<1024xf32>
  %h2 = amp.record_amax %h, %a : tensor<1024xf32>
  return %d, %h2 : tensor<?x16xbf16>, tensor<1024xf32>
}

// CHECK-LABEL: func.func @current_e5m2
func.func @current_e5m2(%g: tensor<8x4xf32>) -> tensor<8x4xf16> {
  %a = amp.amax %g : tensor<8x4xf32>
  // CHECK: amp.fp8_scale %{{.*}} {format = f8E5M2, margin = 2 : i64} : tensor<f32>
  %s = amp.fp8_scale %a {format = f8E5M2, margin = 2} : tensor<f32>
  // CHECK: amp.quantize {{.*}} : tensor<8x4xf32> to tensor<8x4xf8E5M2>
  %q = amp.quantize %g, %s : tensor<8x4xf32> to tensor<8x4xf8E5M2>
  %d = amp.dequantize %q, %s : tensor<8x4xf8E5M2> to tensor<8x4xf16>
  return %d : tensor<8x4xf16>
}

// CHECK-LABEL: func.func @gemm
func.func @gemm(%a: tensor<2x3x4xf8E4M3FN>, %sa: tensor<f32>, %b: tensor<2x5x4xf8E5M2>, %sb: tensor<f32>) -> tensor<2x3x5xf32> {
  // CHECK: amp.scaled_matmul %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {transpose_b = true} : tensor<2x3x4xf8E4M3FN>, tensor<2x5x4xf8E5M2> -> tensor<2x3x5xf32>
  %c = amp.scaled_matmul %a, %sa, %b, %sb {transpose_b = true} : tensor<2x3x4xf8E4M3FN>, tensor<2x5x4xf8E5M2> -> tensor<2x3x5xf32>
  return %c : tensor<2x3x5xf32>
}
