// A clear op after a low result stays low for its low and f32 users alike:
// computing it in f32 would need a widening cast before it and a narrowing
// one for the low user, where low needs only the widening one for the f32
// user (compare wide-result-clear-users.mlir).
// RUN: amp-opt %s --amp-auto-mixed-precision | FileCheck %s

// CHECK-LABEL: func.func @low_result_to_low_and_f32_users
// CHECK: %[[T:.*]] = tg.matmul {{.*}} : tensor<4x8xf16>
// CHECK: %[[R:.*]] = tg.reshape %[[T]] {{.*}} -> tensor<8x4xf16>
// CHECK: tg.matmul %[[R]], {{.*}} : tensor<8x4xf16>
func.func @low_result_to_low_and_f32_users(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>, %v: tensor<4x4xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>) {
  %t = tg.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32>
  %r = tg.reshape %t {shape = array<i64: 8, 4>} : tensor<4x8xf32> -> tensor<8x4xf32>
  %m = tg.matmul %r, %v : tensor<8x4xf32>, tensor<4x4xf32>
  return %m, %r : tensor<8x4xf32>, tensor<8x4xf32>
}
