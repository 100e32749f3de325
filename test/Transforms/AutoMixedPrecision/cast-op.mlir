// IR with no tg or amp op comes back in upstream ops only, so the compiler
// that embeds the pass lowers the result with its own pipeline: casts are
// arith.truncf / arith.extf on tensors (tosa.cast in functions with TOSA
// ops, see tosa.mlir). cast-op=amp asks for amp.cast; cast-op=arith forces
// arith casts even next to tg ops.
// RUN: amp-opt %s --amp-auto-mixed-precision | FileCheck %s --check-prefix=AUTO
// RUN: amp-opt %s --amp-auto-mixed-precision=cast-op=amp | FileCheck %s --check-prefix=AMP
// RUN: amp-opt %s --amp-auto-mixed-precision=cast-op=tosa | FileCheck %s --check-prefix=TOSA
// Running the pass again changes nothing.
// RUN: amp-opt %s --amp-auto-mixed-precision | amp-opt --amp-auto-mixed-precision | FileCheck %s --check-prefix=AUTO

// AUTO-LABEL: func.func @dense
// AUTO-NOT: amp.cast
// AUTO: %[[XH:.*]] = arith.truncf %{{.*}} : tensor<?x64xf32> to tensor<?x64xf16>
// AUTO: %[[M:.*]] = linalg.matmul ins(%[[XH]], %{{.*}} : tensor<?x64xf16>, tensor<64x64xf16>) outs(%{{.*}} : tensor<?x64xf32>)
// AUTO: %[[MH:.*]] = arith.truncf %[[M]] : tensor<?x64xf32> to tensor<?x64xf16>
// AUTO: %[[T:.*]] = math.tanh %[[MH]] : tensor<?x64xf16>
// AUTO: %[[M2:.*]] = linalg.matmul ins(%[[T]], %{{.*}} : tensor<?x64xf16>, tensor<64x64xf16>) outs(%{{.*}} : tensor<?x64xf32>)
// AUTO: return %[[M2]] : tensor<?x64xf32>
// AMP-LABEL: func.func @dense
// AMP-NOT: arith.truncf
// AMP: amp.cast %{{.*}} : tensor<?x64xf32> to tensor<?x64xf16>
// TOSA-LABEL: func.func @dense
// TOSA: tosa.cast %{{.*}} : (tensor<?x64xf32>) -> tensor<?x64xf16>
func.func @dense(%x: tensor<?x64xf32>, %w: tensor<64x64xf32>) -> tensor<?x64xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x64xf32>
  %e = tensor.empty(%n) : tensor<?x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x64xf32>) -> tensor<?x64xf32>
  %m = linalg.matmul ins(%x, %w : tensor<?x64xf32>, tensor<64x64xf32>) outs(%f : tensor<?x64xf32>) -> tensor<?x64xf32>
  %t = math.tanh %m : tensor<?x64xf32>
  %m2 = linalg.matmul ins(%t, %w : tensor<?x64xf32>, tensor<64x64xf32>) outs(%f : tensor<?x64xf32>) -> tensor<?x64xf32>
  return %m2 : tensor<?x64xf32>
}
