// amprt.attention and amprt.attention_grad (here made by the lowering's
// own fusion from a causal attention and its gradient) are one
// amprt_attention and one amprt_attention_grad call: the rank, the
// causal flag and the scores' scale (q's scaling by 0.5, folded in), then
// each tensor with its view {offset, shape, strides} as an i64 array. q, k
// and v are read where the projection wrote them, and neither scores nor
// probabilities are made: no softmax, no slice, transpose or scaling, no
// product but the two calls. fuse-attention=0 lowers the unfused ops.
// RUN: amp-opt %s --amp-lower-to-runtime | FileCheck %s
// RUN: amp-opt %s --amp-lower-to-runtime=fuse-attention=0 \
// RUN:   | FileCheck %s --check-prefix=OFF

// CHECK-LABEL: func.func @step(
// CHECK: %[[QKV:.*]] = llvm.load
// CHECK: %[[GO:.*]] = llvm.load
// CHECK-NOT: call @amprt_{{(causal_)?}}softmax
// CHECK: %[[O:.*]] = call @amprt_tensor_new
// CHECK: %[[RANK:.*]] = arith.constant 4 : i32
// CHECK: %[[CAUSAL:.*]] = arith.constant 1 : i32
// CHECK: %[[SCALE:.*]] = arith.constant 5.000000e-01 : f64
// CHECK: call @amprt_attention(%arg0, %[[RANK]], %[[CAUSAL]], %[[SCALE]], %[[QKV]], %{{.*}}, %[[QKV]], %{{.*}}, %[[QKV]], %{{.*}}, %[[O]], %{{.*}})
// CHECK: %[[DQ:.*]] = call @amprt_tensor_new
// CHECK: %[[DK:.*]] = call @amprt_tensor_new
// CHECK: %[[DV:.*]] = call @amprt_tensor_new
// CHECK: %[[GSCALE:.*]] = arith.constant 5.000000e-01 : f64
// CHECK: call @amprt_attention_grad(%arg0, %{{.*}}, %{{.*}}, %[[GSCALE]], %[[QKV]], %{{.*}}, %[[QKV]], %{{.*}}, %[[QKV]], %{{.*}}, %[[GO]], %{{.*}}, %[[DQ]], %{{.*}}, %[[DK]], %{{.*}}, %[[DV]], %{{.*}})
// CHECK-NOT: call @amprt_{{(causal_)?}}softmax
// CHECK-NOT: call @amprt_softmax_grad
// CHECK-NOT: call @amprt_batch_matmul
// CHECK-NOT: call @amprt_transpose
// CHECK-NOT: call @amprt_slice
// CHECK-NOT: call @amprt_mul
// CHECK: return
// OFF-LABEL: func.func @step(
// OFF-NOT: call @amprt_attention
// OFF: call @amprt_causal_softmax
// OFF: call @amprt_softmax_grad
// OFF-NOT: call @amprt_attention
func.func @step(%qkv: tensor<10x36xf32>, %go: tensor<2x5x3x4xf32>)
    -> (tensor<2x5x3x4xf32>, tensor<2x5x3x4xf32>, tensor<2x5x3x4xf32>, tensor<2x5x3x4xf32>) {
  %q0 = tg.slice %qkv {offsets = array<i64: 0, 0>, sizes = array<i64: 10, 12>} : tensor<10x36xf32>
  %q1 = tg.reshape %q0 : tensor<10x12xf32> -> tensor<2x5x3x4xf32>
  %qh = tg.transpose %q1 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x5x3x4xf32>
  %half = arith.constant dense<0.5> : tensor<f32>
  %q = tg.mul %qh, %half : tensor<2x3x5x4xf32>, tensor<f32>
  %k0 = tg.slice %qkv {offsets = array<i64: 0, 12>, sizes = array<i64: 10, 12>} : tensor<10x36xf32>
  %k1 = tg.reshape %k0 : tensor<10x12xf32> -> tensor<2x5x3x4xf32>
  %k = tg.transpose %k1 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x5x3x4xf32>
  %v0 = tg.slice %qkv {offsets = array<i64: 0, 24>, sizes = array<i64: 10, 12>} : tensor<10x36xf32>
  %v1 = tg.reshape %v0 : tensor<10x12xf32> -> tensor<2x5x3x4xf32>
  %v = tg.transpose %v1 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x5x3x4xf32>
  %s = tg.batch_matmul %q, %k {transpose_b = true} : tensor<2x3x5x4xf32>, tensor<2x3x5x4xf32>
  %p = tg.softmax %s {causal} : tensor<2x3x5x5xf32>
  %o = tg.batch_matmul %p, %v : tensor<2x3x5x5xf32>, tensor<2x3x5x4xf32>
  %om = tg.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<2x3x5x4xf32>
  %do = tg.transpose %go {perm = array<i64: 0, 2, 1, 3>} : tensor<2x5x3x4xf32>
  %dp = tg.batch_matmul %do, %v {transpose_b = true} : tensor<2x3x5x4xf32>, tensor<2x3x5x4xf32>
  %dv = tg.batch_matmul %p, %do {transpose_a = true} : tensor<2x3x5x5xf32>, tensor<2x3x5x4xf32>
  %ds = tg.softmax_grad %dp, %p : tensor<2x3x5x5xf32>
  %dqs = tg.batch_matmul %ds, %k : tensor<2x3x5x5xf32>, tensor<2x3x5x4xf32>
  %dq = tg.mul %dqs, %half : tensor<2x3x5x4xf32>, tensor<f32>
  %dk = tg.batch_matmul %ds, %q {transpose_a = true} : tensor<2x3x5x5xf32>, tensor<2x3x5x4xf32>
  %dqm = tg.transpose %dq {perm = array<i64: 0, 2, 1, 3>} : tensor<2x3x5x4xf32>
  %dkm = tg.transpose %dk {perm = array<i64: 0, 2, 1, 3>} : tensor<2x3x5x4xf32>
  %dvm = tg.transpose %dv {perm = array<i64: 0, 2, 1, 3>} : tensor<2x3x5x4xf32>
  return %om, %dqm, %dkm, %dvm : tensor<2x5x3x4xf32>, tensor<2x5x3x4xf32>, tensor<2x5x3x4xf32>, tensor<2x5x3x4xf32>
}
