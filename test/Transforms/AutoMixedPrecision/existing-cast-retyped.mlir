// An existing cast to f32 whose users all compute in f16 is retyped rather
// than followed by a second cast; one with an f32 user stays.
// RUN: amp-opt %s --amp-auto-mixed-precision | FileCheck %s

// CHECK-LABEL: func.func @retyped
// CHECK-SAME: (%[[H:.*]]: tensor<32x32xf16>, %[[W:.*]]: tensor<32x32xf32>)
// CHECK-NOT: amp.cast %[[H]]
// CHECK: %[[CW:.*]] = amp.cast %[[W]] : tensor<32x32xf32> to tensor<32x32xf16>
// CHECK-NOT: amp.cast %[[H]]
// CHECK: %[[M:.*]] = tg.matmul %[[H]], %[[CW]] : tensor<32x32xf16>
// The signature keeps its f32 result: one cast back, of the product.
// CHECK: %[[R:.*]] = amp.cast %[[M]] : tensor<32x32xf16> to tensor<32x32xf32>
// CHECK: return %[[R]]
func.func @retyped(%h: tensor<32x32xf16>, %w: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %x = amp.cast %h : tensor<32x32xf16> to tensor<32x32xf32>
  %m = tg.matmul %x, %w : tensor<32x32xf32>
  return %m : tensor<32x32xf32>
}

// CHECK-LABEL: func.func @kept
// CHECK-SAME: (%[[H:.*]]: tensor<32x32xf16>
// CHECK: %[[X:.*]] = amp.cast %[[H]] : tensor<32x32xf16> to tensor<32x32xf32>
// CHECK: tg.exp %[[X]]
func.func @kept(%h: tensor<32x32xf16>, %w: tensor<32x32xf32>) -> (tensor<32x32xf32>, tensor<32x32xf32>) {
  %x = amp.cast %h : tensor<32x32xf16> to tensor<32x32xf32>
  %m = tg.matmul %x, %w : tensor<32x32xf32>
  %e = tg.exp %x : tensor<32x32xf32>
  return %m, %e : tensor<32x32xf32>, tensor<32x32xf32>
}
