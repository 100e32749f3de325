// cast-op=auto on IR with no tg or amp op chooses the cast per value:
// tosa.cast where a TOSA op produces or uses the value, arith elsewhere.
// A linalg function whose only TOSA ops are unused tosa.const_shape ops
// gets arith casts only.
// RUN: amp-opt %s --amp-auto-mixed-precision | FileCheck %s

// CHECK-LABEL: func.func @linalg_beside_const_shape
// CHECK-NOT: tosa.cast
// CHECK: arith.truncf %{{.*}} : tensor<8x64xf32> to tensor<8x64xf16>
// CHECK-NOT: tosa.cast
// CHECK: return
func.func @linalg_beside_const_shape(%x: tensor<8x64xf32>, %w: tensor<64x32xf32>) -> tensor<8x32xf32> {
  %s = tosa.const_shape {values = dense<[8, 32]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x32xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %m = linalg.matmul ins(%x, %w : tensor<8x64xf32>, tensor<64x32xf32>) outs(%acc : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %m : tensor<8x32xf32>
}

// A TOSA op's operands get tosa.cast; the linalg matmul beside it, arith.
// CHECK-LABEL: func.func @mixed
// CHECK-DAG: tosa.cast %{{.*}} : (tensor<1x8x64xf32>) -> tensor<1x8x64xf16>
// CHECK-DAG: arith.truncf %{{.*}} : tensor<8x64xf32> to tensor<8x64xf16>
func.func @mixed(%a: tensor<1x8x64xf32>, %b: tensor<1x64x16xf32>, %x: tensor<8x64xf32>, %w: tensor<64x32xf32>) -> (tensor<1x8x16xf32>, tensor<8x32xf32>) {
  %za = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %zb = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %t = tosa.matmul %a, %b, %za, %zb : (tensor<1x8x64xf32>, tensor<1x64x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x16xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x32xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %m = linalg.matmul ins(%x, %w : tensor<8x64xf32>, tensor<64x32xf32>) outs(%acc : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %t, %m : tensor<1x8x16xf32>, tensor<8x32xf32>
}
