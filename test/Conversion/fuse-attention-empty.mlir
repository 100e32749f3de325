// Attention whose heads have no queries fuses into an amprt.attention
// whose o_view names no element: a view that names nothing names nothing
// twice, so the op verifies (amprt_attention returns at once for it).
// Heads with no keys stay unfused, causal or not: amprt.attention needs
// a key (a softmax over nothing).
// RUN: amp-opt %s --amp-fuse-for-runtime=attention-min-keys=0 | FileCheck %s

// CHECK-LABEL: func.func @no_queries(
// CHECK: amprt.attention %{{.*}} [0, 2, 0, 3, 0, 3, 1], %{{.*}} into [0, 2, 0, 5, 0, 5, 1] {causal}
// CHECK-SAME: -> tensor<2x0x5xf32>
func.func @no_queries(%q: tensor<2x0x3xf32>, %k: tensor<2x4x3xf32>, %v: tensor<2x4x5xf32>) -> tensor<2x0x5xf32> {
  %s = tg.batch_matmul %q, %k {transpose_b = true} : tensor<2x0x3xf32>, tensor<2x4x3xf32>
  %p = tg.softmax %s {causal} : tensor<2x0x4xf32>
  %o = tg.batch_matmul %p, %v : tensor<2x0x4xf32>, tensor<2x4x5xf32>
  return %o : tensor<2x0x5xf32>
}

// CHECK-LABEL: func.func @no_keys(
// CHECK-NOT: amprt.attention
// CHECK: tg.softmax %{{.*}} {causal}
// CHECK-NOT: amprt.attention
// CHECK: tg.softmax
// CHECK-NOT: amprt.attention
// CHECK: return
func.func @no_keys(%q: tensor<2x4x3xf32>, %k: tensor<2x0x3xf32>, %v: tensor<2x0x5xf32>) -> (tensor<2x4x5xf32>, tensor<2x4x5xf32>) {
  %s = tg.batch_matmul %q, %k {transpose_b = true} : tensor<2x4x3xf32>, tensor<2x0x3xf32>
  %p = tg.softmax %s {causal} : tensor<2x4x0xf32>
  %o = tg.batch_matmul %p, %v : tensor<2x4x0xf32>, tensor<2x0x5xf32>
  %p2 = tg.softmax %s : tensor<2x4x0xf32>
  %o2 = tg.batch_matmul %p2, %v : tensor<2x4x0xf32>, tensor<2x0x5xf32>
  return %o, %o2 : tensor<2x4x5xf32>, tensor<2x4x5xf32>
}
