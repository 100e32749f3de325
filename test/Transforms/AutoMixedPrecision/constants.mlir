// Casts of constants fold into f16 constants made in bulk; the f32 constant
// stays while it has f32 users, and is erased once nothing uses it. Weights
// held in dense_resource blobs (as torch-mlir stores them) fold into a new
// blob.
// RUN: amp-opt %s --amp-auto-mixed-precision | FileCheck %s

// CHECK-LABEL: func.func @folded
// CHECK-DAG: %[[C32:.*]] = arith.constant dense<5.000000e-01> : tensor<32x32xf32>
// CHECK-DAG: %[[C16:.*]] = arith.constant dense<5.000000e-01> : tensor<32x32xf16>
// CHECK: %[[M:.*]] = tg.matmul %{{.*}}, %[[C16]] : tensor<32x32xf16>
// CHECK: tg.exp %[[C32]] : tensor<32x32xf32>
// CHECK-NOT: amp.cast %[[C32]]
func.func @folded(%x: tensor<32x32xf32>) -> (tensor<32x32xf32>, tensor<32x32xf32>) {
  %c = arith.constant dense<0.5> : tensor<32x32xf32>
  %m = tg.matmul %x, %c : tensor<32x32xf32>
  %e = tg.exp %c : tensor<32x32xf32>
  return %m, %e : tensor<32x32xf32>, tensor<32x32xf32>
}

// Round to nearest even, element by element; no unused f32 constant left.
// CHECK-LABEL: func.func @rounded
// CHECK-NOT: tensor<2x2xf32> = arith.constant
// CHECK: arith.constant dense<{{\[}}[1.000000e+00, 3.332520e-01], [-2.000000e+00, 6.550400e+04]]> : tensor<2x2xf16>
// CHECK-NOT: : tensor<2x2xf32>
// CHECK: tg.matmul
func.func @rounded(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %c = arith.constant dense<[[1.0, 0.33333333], [-2.0, 65504.0]]> : tensor<2x2xf32>
  %m = tg.matmul %x, %c : tensor<2x2xf32>
  return %m : tensor<2x2xf32>
}

// CHECK-LABEL: func.func @resource
// CHECK: %[[W:.*]] = arith.constant dense_resource<weight_f16> : tensor<2x2xf16>
// CHECK: tg.matmul %{{.*}}, %[[W]] : tensor<2x2xf16>
// CHECK: weight_f16: "0x02000000003C004000420044"
func.func @resource(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %c = arith.constant dense_resource<weight> : tensor<2x2xf32>
  %m = tg.matmul %x, %c : tensor<2x2xf32>
  return %m : tensor<2x2xf32>
}

{-#
  dialect_resources: {
    builtin: {
      weight: "0x040000000000803F000000400000404000008040"
    }
  }
#-}
