// Attention that is not causal is fused only where its heads have at
// least attention-min-keys keys (128 by default): shorter heads' unfused
// products are faster on the CPU. Causal attention is fused at any length.
// RUN: amp-opt %s --amp-fuse-for-runtime | FileCheck %s
// RUN: amp-opt %s --amp-fuse-for-runtime=attention-min-keys=64 \
// RUN:   | FileCheck %s --check-prefix=MIN64
// RUN: amp-opt %s --amp-lower-to-runtime=attention-min-keys=64 \
// RUN:   | FileCheck %s --check-prefix=LOWER64
// A negative count is refused by either pass, naming the option.
// RUN: not amp-opt %s --amp-fuse-for-runtime=attention-min-keys=-1 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NEGATIVE
// RUN: not amp-opt %s --amp-lower-to-runtime=attention-min-keys=-3 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NEGLOWER
// NEGATIVE: error: amp-fuse-for-runtime: attention-min-keys must be >= 0, got -1
// NEGLOWER: error: amp-lower-to-runtime: attention-min-keys must be >= 0, got -3

// 64 keys, not causal: fused from attention-min-keys=64 down.
// CHECK-LABEL: func.func @keys64(
// CHECK-NOT: amprt.attention
// CHECK: tg.softmax
// CHECK-NOT: amprt.attention
// CHECK: return
// MIN64-LABEL: func.func @keys64(
// MIN64-NEXT: amprt.attention
// LOWER64-LABEL: func.func @keys64(
// LOWER64: call @amprt_attention(
// LOWER64-NOT: call @amprt_softmax(
func.func @keys64(%q: tensor<2x8x4xf32>, %k: tensor<2x64x4xf32>, %v: tensor<2x64x4xf32>) -> tensor<2x8x4xf32> {
  %s = tg.batch_matmul %q, %k {transpose_b = true} : tensor<2x8x4xf32>, tensor<2x64x4xf32>
  %p = tg.softmax %s : tensor<2x8x64xf32>
  %o = tg.batch_matmul %p, %v : tensor<2x8x64xf32>, tensor<2x64x4xf32>
  return %o : tensor<2x8x4xf32>
}

// 63 keys: one short of attention-min-keys=64.
// CHECK-LABEL: func.func @keys63(
// CHECK-NOT: amprt.attention
// MIN64-LABEL: func.func @keys63(
// MIN64-NOT: amprt.attention
// MIN64: tg.softmax
// MIN64-NOT: amprt.attention
// MIN64: return
// LOWER64-LABEL: func.func @keys63(
// LOWER64-NOT: call @amprt_attention(
// LOWER64: call @amprt_softmax(
func.func @keys63(%q: tensor<2x8x4xf32>, %k: tensor<2x63x4xf32>, %v: tensor<2x63x4xf32>) -> tensor<2x8x4xf32> {
  %s = tg.batch_matmul %q, %k {transpose_b = true} : tensor<2x8x4xf32>, tensor<2x63x4xf32>
  %p = tg.softmax %s : tensor<2x8x63xf32>
  %o = tg.batch_matmul %p, %v : tensor<2x8x63xf32>, tensor<2x63x4xf32>
  return %o : tensor<2x8x4xf32>
}

// 128 keys: fused by default.
// CHECK-LABEL: func.func @keys128(
// CHECK-NEXT: amprt.attention
func.func @keys128(%q: tensor<2x8x4xf32>, %k: tensor<2x128x4xf32>, %v: tensor<2x128x4xf32>) -> tensor<2x8x4xf32> {
  %s = tg.batch_matmul %q, %k {transpose_b = true} : tensor<2x8x4xf32>, tensor<2x128x4xf32>
  %p = tg.softmax %s : tensor<2x8x128xf32>
  %o = tg.batch_matmul %p, %v : tensor<2x8x128xf32>, tensor<2x128x4xf32>
  return %o : tensor<2x8x4xf32>
}

// Causal with 5 keys: fused at any length.
// CHECK-LABEL: func.func @causal5(
// CHECK-NEXT: amprt.attention {{.*}} {causal}
func.func @causal5(%q: tensor<2x5x4xf32>, %k: tensor<2x5x4xf32>, %v: tensor<2x5x4xf32>) -> tensor<2x5x4xf32> {
  %s = tg.batch_matmul %q, %k {transpose_b = true} : tensor<2x5x4xf32>, tensor<2x5x4xf32>
  %p = tg.softmax %s {causal} : tensor<2x5x5xf32>
  %o = tg.batch_matmul %p, %v : tensor<2x5x5xf32>, tensor<2x5x4xf32>
  return %o : tensor<2x5x4xf32>
}
