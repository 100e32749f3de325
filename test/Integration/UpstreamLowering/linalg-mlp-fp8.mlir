// precision=fp8 on the torch-mlir-style linalg MLP of linalg-mlp.mlir: the
// FP8 chains come back in upstream ops (linalg.reduce for the amax, integer
// arithmetic on the exponent bits for the power-of-two scale, a linalg.generic
// that saturates and rounds to f8E4M3FN, one that reads it back to bf16),
// no amp op. Upstream mlir-opt-22 lowers it (convert-arith-to-apfloat for
// the FP8 conversions) and mlir-runner-22 runs it: the outputs match the
// f32 program's within FP8 tolerance (E4M3 keeps 3 mantissa bits) and
// differ from the bf16 program's (the FP8 rounding ran).
// REQUIRES: upstream-mlir-runner
// RUN: amp-opt %S/linalg-mlp.mlir --amp-auto-mixed-precision=precision=fp8 -o %t.fp8.mlir
// RUN: FileCheck %s --input-file=%t.fp8.mlir
// RUN: amp-opt %S/linalg-mlp.mlir --amp-auto-mixed-precision=precision=bf16 -o %t.bf16.mlir
// RUN: %fp8_upstream_to_llvm %S/linalg-mlp.mlir | %fp8_upstream_run > %t.f32.txt
// RUN: %fp8_upstream_to_llvm %t.bf16.mlir | %fp8_upstream_run > %t.bf16.txt
// RUN: %fp8_upstream_to_llvm %t.fp8.mlir | %fp8_upstream_run > %t.fp8.txt
// RUN: %python %S/compare_outputs.py %t.f32.txt %t.fp8.txt --tolerance 1e-1
// RUN: %python %S/compare_outputs.py %t.bf16.txt %t.fp8.txt --tolerance 1e-1

// CHECK-NOT: amp.
// CHECK-LABEL: func.func @forward
// CHECK: %[[X:.*]] = arith.truncf %{{.*}} : tensor<?x64xf32> to tensor<?x64xbf16>
// CHECK: linalg.reduce ins(%[[X]] : tensor<?x64xbf16>) outs(%{{.*}} : tensor<f32>) dimensions = [0, 1]
// CHECK: arith.bitcast %{{.*}} : f32 to i32
// CHECK: %[[Q:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<?x64xbf16>) outs(%{{.*}} : tensor<?x64xf8E4M3FN>)
// CHECK: arith.minimumf
// CHECK: arith.truncf %{{.*}} : f32 to f8E4M3FN
// CHECK: %[[D:.*]] = linalg.generic {{.*}} ins(%[[Q]] : tensor<?x64xf8E4M3FN>) outs(%{{.*}} : tensor<?x64xbf16>)
// CHECK: linalg.matmul ins(%[[D]], %{{.*}} : tensor<?x64xbf16>, tensor<64x32xbf16>)
