// A contraction into an f32 accumulator keeps its f32 result: a clear op
// after it (a reshape, as buddy-mlir's LLaMA and DeepSeek graphs put
// before the LM head's logits and the attention scores) stays f32 when its
// users want f32, so the accumulation is not rounded to f16 and widened
// straight back. One that feeds a low op still turns low, with the one
// cast after the contraction.
// RUN: amp-opt %s --amp-auto-mixed-precision | FileCheck %s
// RUN: amp-opt %s --amp-auto-mixed-precision=precision=bf16 | FileCheck %s --check-prefix=BF16
// RUN: amp-opt %s --amp-auto-mixed-precision=remarks -o /dev/null 2>&1 | FileCheck %s --check-prefix=REASON
// REASON: :[[@LINE+18]]:8: remark: amp: f32 (clear op after an allow op's f32 result, with no f16 user)
// REASON: :[[@LINE+60]]:8: remark: amp: f32 (clear op whose f32 inputs and users need fewer casts than f16 would)
// REASON: :[[@LINE+60]]:9: remark: amp: f32 (clear op whose f32 inputs and users need fewer casts than f16 would)

// CHECK-LABEL: func.func @reshape_to_f32_result
// CHECK: %[[M:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<1x64xf16>, tensor<64x32xf16>) outs(%{{.*}} : tensor<1x32xf32>)
// CHECK-NOT: arith.truncf
// CHECK: %[[R:.*]] = tensor.expand_shape %[[M]] {{.*}} : tensor<1x32xf32> into tensor<1x1x32xf32>
// CHECK-NOT: arith.extf
// CHECK: return %[[R]] : tensor<1x1x32xf32>
// BF16-LABEL: func.func @reshape_to_f32_result
// BF16-NOT: arith.extf
// BF16: return
func.func @reshape_to_f32_result(%x: tensor<1x64xf32>, %w: tensor<64x32xf32>) -> tensor<1x1x32xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x32xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<1x32xf32>) -> tensor<1x32xf32>
  %m = linalg.matmul ins(%x, %w : tensor<1x64xf32>, tensor<64x32xf32>) outs(%acc : tensor<1x32xf32>) -> tensor<1x32xf32>
  %r = tensor.expand_shape %m [[0, 1], [2]] output_shape [1, 1, 32] : tensor<1x32xf32> into tensor<1x1x32xf32>
  return %r : tensor<1x1x32xf32>
}

// The reshape feeds a second contraction: it turns low, the matmul's
// result is rounded once, and nothing widens back.
// CHECK-LABEL: func.func @reshape_to_low_user
// CHECK: %[[M:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x64xf16>, tensor<64x32xf16>) outs(%{{.*}} : tensor<4x32xf32>)
// CHECK: %[[MH:.*]] = arith.truncf %[[M]] : tensor<4x32xf32> to tensor<4x32xf16>
// CHECK: %[[R:.*]] = tensor.collapse_shape %[[MH]] {{.*}} : tensor<4x32xf16> into tensor<128xf16>
// CHECK: %[[RR:.*]] = tensor.expand_shape %[[R]] {{.*}} : tensor<128xf16> into tensor<8x16xf16>
// CHECK: linalg.matmul ins(%[[RR]], %{{.*}} : tensor<8x16xf16>, tensor<16x8xf16>)
// CHECK-NOT: arith.extf
func.func @reshape_to_low_user(%x: tensor<4x64xf32>, %w: tensor<64x32xf32>, %v: tensor<16x8xf32>) -> tensor<8x8xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x32xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<4x32xf32>) -> tensor<4x32xf32>
  %m = linalg.matmul ins(%x, %w : tensor<4x64xf32>, tensor<64x32xf32>) outs(%acc : tensor<4x32xf32>) -> tensor<4x32xf32>
  %r = tensor.collapse_shape %m [[0, 1]] : tensor<4x32xf32> into tensor<128xf32>
  %rr = tensor.expand_shape %r [[0, 1]] output_shape [8, 16] : tensor<128xf32> into tensor<8x16xf32>
  %e2 = tensor.empty() : tensor<8x8xf32>
  %acc2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %m2 = linalg.matmul ins(%rr, %v : tensor<8x16xf32>, tensor<16x8xf32>) outs(%acc2 : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %m2 : tensor<8x8xf32>
}

// The reshapes feed a second contraction and are returned too: they stay
// f32, with one cast at the contraction, rather than a truncf after the
// first contraction and an extf back for the return.
// CHECK-LABEL: func.func @reshape_to_low_and_f32_users
// CHECK: %[[M:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x64xf16>, tensor<64x32xf16>) outs(%{{.*}} : tensor<4x32xf32>)
// CHECK-NOT: arith.truncf %[[M]]
// CHECK: %[[R:.*]] = tensor.collapse_shape %[[M]] {{.*}} : tensor<4x32xf32> into tensor<128xf32>
// CHECK: %[[RR:.*]] = tensor.expand_shape %[[R]] {{.*}} : tensor<128xf32> into tensor<8x16xf32>
// CHECK: %[[RH:.*]] = arith.truncf %[[RR]] : tensor<8x16xf32> to tensor<8x16xf16>
// CHECK: %[[M2:.*]] = linalg.matmul ins(%[[RH]], %{{.*}} : tensor<8x16xf16>, tensor<16x8xf16>)
// CHECK-NOT: arith.extf
// CHECK: return %[[M2]], %[[RR]]
func.func @reshape_to_low_and_f32_users(%x: tensor<4x64xf32>, %w: tensor<64x32xf32>, %v: tensor<16x8xf32>) -> (tensor<8x8xf32>, tensor<8x16xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x32xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<4x32xf32>) -> tensor<4x32xf32>
  %m = linalg.matmul ins(%x, %w : tensor<4x64xf32>, tensor<64x32xf32>) outs(%acc : tensor<4x32xf32>) -> tensor<4x32xf32>
  %r = tensor.collapse_shape %m [[0, 1]] : tensor<4x32xf32> into tensor<128xf32>
  %rr = tensor.expand_shape %r [[0, 1]] output_shape [8, 16] : tensor<128xf32> into tensor<8x16xf32>
  %e2 = tensor.empty() : tensor<8x8xf32>
  %acc2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %m2 = linalg.matmul ins(%rr, %v : tensor<8x16xf32>, tensor<16x8xf32>) outs(%acc2 : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %m2, %rr : tensor<8x8xf32>, tensor<8x16xf32>
}

