// Trained weights hold a few values f16 cannot hold as normals: they flush
// to subnormals or zero, as TensorFlow and PyTorch cast weights, and the
// report counts them. Only a value past f16's largest finite value keeps
// its op in f32 (constant-overflow=keep-f32, the default);
// constant-overflow=saturate converts it to 65504 instead. bf16 has f32's
// range: nothing overflows.
// RUN: amp-opt %s --amp-auto-mixed-precision="report=%t.json" | FileCheck %s
// RUN: FileCheck %s --check-prefix=REPORT --input-file=%t.json
// RUN: amp-opt %s --amp-auto-mixed-precision="constant-overflow=saturate" | FileCheck %s --check-prefix=SATURATE
// RUN: amp-opt %s --amp-auto-mixed-precision=precision=bf16 | FileCheck %s --check-prefix=BF16
// RUN: not amp-opt %s --amp-auto-mixed-precision="constant-overflow=clip" 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK-LABEL: func.func @tiny_values
// CHECK: %[[W:.*]] = arith.constant dense<{{\[}}[5.000000e-01, 0.000000e+00], [5.960460e-08, -2.500000e-01]]> : tensor<2x2xf16>
// CHECK: tg.matmul %{{.*}}, %[[W]] : tensor<2x2xf16>
func.func @tiny_values(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %w = arith.constant dense<[[0.5, 1.0e-9], [6.0e-8, -0.25]]> : tensor<2x2xf32>
  %m = tg.matmul %x, %w : tensor<2x2xf32>
  return %m : tensor<2x2xf32>
}

// CHECK-LABEL: func.func @overflow
// CHECK: arith.constant dense<{{\[}}[1.000000e+00, 1.000000e+05], [5.000000e-01, 5.000000e-01]]> : tensor<2x2xf32>
// CHECK: tg.matmul {{.*}} : tensor<2x2xf32>
// SATURATE-LABEL: func.func @overflow
// SATURATE: %[[W:.*]] = arith.constant dense<{{\[}}[1.000000e+00, 6.550400e+04], [5.000000e-01, 5.000000e-01]]> : tensor<2x2xf16>
// SATURATE: tg.matmul %{{.*}}, %[[W]] : tensor<2x2xf16>
// BF16-LABEL: func.func @overflow
// BF16: tg.matmul {{.*}} : tensor<2x2xbf16>
func.func @overflow(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %c = arith.constant dense<[[1.0, 1.0e5], [0.5, 0.5]]> : tensor<2x2xf32>
  %m = tg.matmul %x, %c : tensor<2x2xf32>
  return %m : tensor<2x2xf32>
}

// A splat converts one value, counted once per element.
// CHECK-LABEL: func.func @splat
// CHECK: arith.constant dense<0.000000e+00> : tensor<64x64xf16>
func.func @splat(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %w = arith.constant dense<1.0e-9> : tensor<64x64xf32>
  %m = tg.matmul %x, %w : tensor<64x64xf32>
  return %m : tensor<64x64xf32>
}

// REPORT: "reason": "constant operand out of f16 range"
// REPORT: "casts": [
// REPORT: "function": "tiny_values"
// REPORT-NEXT: "value": "argument #0 of @tiny_values"
// REPORT-NEXT: "location": "loc(\"{{.*}}constants-range.mlir\":16:24)"
// REPORT-NEXT: "from": "f32"
// REPORT-NEXT: "to": "f16"
// REPORT-NEXT: "reason": "for tg.matmul at loc({{.*}}), which computes in f16 (allow list)"
// REPORT: "value": "result #0 of tg.matmul"
// REPORT: "from": "f16"
// REPORT-NEXT: "to": "f32"
// REPORT-NEXT: "reason": "for func.return at loc({{.*}}), which forwards or returns it in f32"
// REPORT: "constants": [
// REPORT: "function": "tiny_values"
// REPORT: "to": "f16"
// REPORT-NEXT: "values": 4
// REPORT-NEXT: "overflowed": 0
// REPORT-NEXT: "flushed_to_zero": 1
// REPORT-NEXT: "subnormal": 1
// REPORT: "function": "splat"
// REPORT: "values": 4096
// REPORT-NEXT: "overflowed": 0
// REPORT-NEXT: "flushed_to_zero": 4096
// REPORT: "totals":
// REPORT: "constant_values": 4100
// REPORT-NEXT: "overflowed": 0
// REPORT-NEXT: "flushed_to_zero": 4097
// REPORT-NEXT: "subnormal": 1
// BAD: for the --constant-overflow option: Cannot find option named 'clip'!
