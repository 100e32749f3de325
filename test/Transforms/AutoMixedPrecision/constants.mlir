// Casts of constants fold into f16 constants; the f32 constant stays for
// its f32 users. A constant outside the f16 range (overflow, or a non-zero
// that would flush to zero) is never rounded: its consumer keeps f32.
// RUN: amp-opt %s --amp-auto-mixed-precision | FileCheck %s
// RUN: amp-opt %s --amp-auto-mixed-precision=precision=bf16 | FileCheck %s --check-prefix=BF16

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

// CHECK-LABEL: func.func @overflow
// CHECK: tg.matmul {{.*}} : tensor<4x4xf32>
// CHECK-NOT: f16
// BF16-LABEL: func.func @overflow
// BF16: tg.matmul {{.*}} : tensor<4x4xbf16>
func.func @overflow(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %c = arith.constant dense<1.0e5> : tensor<4x4xf32>
  %m = tg.matmul %x, %c : tensor<4x4xf32>
  return %m : tensor<4x4xf32>
}

// CHECK-LABEL: func.func @underflow
// CHECK: tg.matmul {{.*}} : tensor<4x4xf32>
func.func @underflow(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %c = arith.constant dense<1.0e-9> : tensor<4x4xf32>
  %m = tg.matmul %x, %c : tensor<4x4xf32>
  return %m : tensor<4x4xf32>
}
