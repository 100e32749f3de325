// --amp-fuse-for-runtime runs attention, q k^T -> tg.softmax along the
// keys -> p v, as one amprt.attention at the second product's place, and
// the five ops autodiff writes for its gradient (dp = do v^T, dv = p^T do,
// ds = softmax_grad(dp, p), dq = ds k, dk = ds^T q) as one
// amprt.attention_grad before the first of them, over views
// {offset, shape, strides} of the tensors q, k, v and do start from: the
// probabilities are never a tensor. A result only a tg.transpose reads is
// written through it. Where anything else reads the scores, the
// probabilities or the gradient's intermediates, nothing is fused (the
// strided products take the products). fuse-attention=0 leaves them all.
// Heads this short are fused only with attention-min-keys lowered (the
// policy's own test: fuse-attention-min-keys.mlir).
// RUN: amp-opt %s --amp-fuse-for-runtime=attention-min-keys=1 | FileCheck %s
// RUN: amp-opt %s --amp-fuse-for-runtime=fuse-attention=0 \
// RUN:   | FileCheck %s --check-prefix=OFF

// Batch 2, 5 tokens, 3 heads of 4: q, k and v are columns 0-11, 12-23 and
// 24-35 of a [10, 36] projection; do arrives with the heads merged.
// CHECK-LABEL: func.func @step(
// CHECK-NEXT: %[[O:.*]] = amprt.attention %arg0 [0, 2, 3, 5, 4, 180, 4, 36, 1], %arg0 [12, 2, 3, 5, 4, 180, 4, 36, 1], %arg0 [24, 2, 3, 5, 4, 180, 4, 36, 1] into [0, 2, 3, 5, 4, 60, 4, 12, 1] {causal} : tensor<10x36xf32>, tensor<10x36xf32>, tensor<10x36xf32> -> tensor<2x5x3x4xf32>
// CHECK-NEXT: %[[DQ:.*]], %[[DK:.*]], %[[DV:.*]] = amprt.attention_grad %arg0 [0, 2, 3, 5, 4, 180, 4, 36, 1], %arg0 [12, 2, 3, 5, 4, 180, 4, 36, 1], %arg0 [24, 2, 3, 5, 4, 180, 4, 36, 1], %arg1 [0, 2, 3, 5, 4, 60, 4, 12, 1] into [0, 2, 3, 5, 4, 60, 20, 4, 1], [0, 2, 3, 5, 4, 60, 4, 12, 1], [0, 2, 3, 5, 4, 60, 4, 12, 1] {causal} : tensor<10x36xf32>, tensor<10x36xf32>, tensor<10x36xf32>, tensor<2x5x3x4xf32> -> tensor<2x3x5x4xf32>, tensor<2x5x3x4xf32>, tensor<2x5x3x4xf32>
// CHECK-NEXT: %[[E:.*]] = tg.exp %[[DQ]]
// CHECK-NEXT: return %[[O]], %[[E]], %[[DK]], %[[DV]]
// OFF-LABEL: func.func @step(
// OFF-NOT: amprt.attention
// OFF: tg.softmax
// OFF: tg.softmax_grad
// OFF-NOT: amprt.attention
func.func @step(%qkv: tensor<10x36xf32>, %go: tensor<2x5x3x4xf32>)
    -> (tensor<2x5x3x4xf32>, tensor<2x3x5x4xf32>, tensor<2x5x3x4xf32>, tensor<2x5x3x4xf32>) {
  %q0 = tg.slice %qkv {offsets = array<i64: 0, 0>, sizes = array<i64: 10, 12>} : tensor<10x36xf32>
  %q1 = tg.reshape %q0 : tensor<10x12xf32> -> tensor<2x5x3x4xf32>
  %q = tg.transpose %q1 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x5x3x4xf32>
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
  %dq = tg.batch_matmul %ds, %k : tensor<2x3x5x5xf32>, tensor<2x3x5x4xf32>
  %dk = tg.batch_matmul %ds, %q {transpose_a = true} : tensor<2x3x5x5xf32>, tensor<2x3x5x4xf32>
  %e = tg.exp %dq : tensor<2x3x5x4xf32>
  %dkm = tg.transpose %dk {perm = array<i64: 0, 2, 1, 3>} : tensor<2x3x5x4xf32>
  %dvm = tg.transpose %dv {perm = array<i64: 0, 2, 1, 3>} : tensor<2x3x5x4xf32>
  return %om, %e, %dkm, %dvm : tensor<2x5x3x4xf32>, tensor<2x3x5x4xf32>, tensor<2x5x3x4xf32>, tensor<2x5x3x4xf32>
}

// A forward alone, not causal, of dense bf16 heads (4 queries, 6 keys),
// axis given as the last.
// CHECK-LABEL: func.func @forward(
// CHECK-NEXT: %[[O:.*]] = amprt.attention %arg0 [0, 2, 4, 3, 12, 3, 1], %arg1 [0, 2, 6, 3, 18, 3, 1], %arg2 [0, 2, 6, 5, 30, 5, 1] into [0, 2, 4, 5, 20, 5, 1] : tensor<2x4x3xbf16>, tensor<2x6x3xbf16>, tensor<2x6x5xbf16> -> tensor<2x4x5xbf16>
// CHECK-NEXT: return %[[O]]
func.func @forward(%q: tensor<2x4x3xbf16>, %k: tensor<2x6x3xbf16>, %v: tensor<2x6x5xbf16>) -> tensor<2x4x5xbf16> {
  %s = tg.batch_matmul %q, %k {transpose_b = true} : tensor<2x4x3xbf16>, tensor<2x6x3xbf16>
  %p = tg.softmax %s {axis = 2 : i64} : tensor<2x4x6xbf16>
  %o = tg.batch_matmul %p, %v : tensor<2x4x6xbf16>, tensor<2x6x5xbf16>
  return %o : tensor<2x4x5xbf16>
}

// Probabilities or scores read elsewhere, a softmax along the queries, or
// a gradient whose ds another op reads: nothing is fused.
// CHECK-LABEL: func.func @kept_probabilities(
// CHECK-NOT: amprt.attention
// CHECK: return
func.func @kept_probabilities(%q: tensor<2x4x3xf32>, %k: tensor<2x4x3xf32>, %v: tensor<2x4x5xf32>)
    -> (tensor<2x4x5xf32>, tensor<2x4x4xf32>) {
  %s = tg.batch_matmul %q, %k {transpose_b = true} : tensor<2x4x3xf32>, tensor<2x4x3xf32>
  %p = tg.softmax %s {causal} : tensor<2x4x4xf32>
  %o = tg.batch_matmul %p, %v : tensor<2x4x4xf32>, tensor<2x4x5xf32>
  return %o, %p : tensor<2x4x5xf32>, tensor<2x4x4xf32>
}

// CHECK-LABEL: func.func @kept_scores(
// CHECK-NOT: amprt.attention
// CHECK: return
func.func @kept_scores(%q: tensor<2x4x3xf32>, %k: tensor<2x4x3xf32>, %v: tensor<2x4x5xf32>)
    -> (tensor<2x4x5xf32>, tensor<2x4x4xf32>) {
  %s = tg.batch_matmul %q, %k {transpose_b = true} : tensor<2x4x3xf32>, tensor<2x4x3xf32>
  %p = tg.softmax %s : tensor<2x4x4xf32>
  %o = tg.batch_matmul %p, %v : tensor<2x4x4xf32>, tensor<2x4x5xf32>
  %e = tg.exp %s : tensor<2x4x4xf32>
  return %o, %e : tensor<2x4x5xf32>, tensor<2x4x4xf32>
}

// CHECK-LABEL: func.func @along_queries(
// CHECK-NOT: amprt.attention
// CHECK: return
func.func @along_queries(%q: tensor<2x4x3xf32>, %k: tensor<2x4x3xf32>, %v: tensor<2x4x5xf32>) -> tensor<2x4x5xf32> {
  %s = tg.batch_matmul %q, %k {transpose_b = true} : tensor<2x4x3xf32>, tensor<2x4x3xf32>
  %p = tg.softmax %s {axis = 1 : i64} : tensor<2x4x4xf32>
  %o = tg.batch_matmul %p, %v : tensor<2x4x4xf32>, tensor<2x4x5xf32>
  return %o : tensor<2x4x5xf32>
}

// CHECK-LABEL: func.func @kept_score_gradient(
// CHECK-NOT: amprt.attention
// CHECK: tg.softmax_grad
// CHECK-NOT: amprt.attention
// CHECK: return
func.func @kept_score_gradient(%q: tensor<2x4x3xf32>, %k: tensor<2x4x3xf32>, %v: tensor<2x4x5xf32>, %do: tensor<2x4x5xf32>)
    -> (tensor<2x4x5xf32>, tensor<2x4x3xf32>, tensor<2x4x3xf32>, tensor<2x4x5xf32>, tensor<2x4x4xf32>) {
  %s = tg.batch_matmul %q, %k {transpose_b = true} : tensor<2x4x3xf32>, tensor<2x4x3xf32>
  %p = tg.softmax %s {causal} : tensor<2x4x4xf32>
  %o = tg.batch_matmul %p, %v : tensor<2x4x4xf32>, tensor<2x4x5xf32>
  %dp = tg.batch_matmul %do, %v {transpose_b = true} : tensor<2x4x5xf32>, tensor<2x4x5xf32>
  %dv = tg.batch_matmul %p, %do {transpose_a = true} : tensor<2x4x4xf32>, tensor<2x4x5xf32>
  %ds = tg.softmax_grad %dp, %p : tensor<2x4x4xf32>
  %dq = tg.batch_matmul %ds, %k : tensor<2x4x4xf32>, tensor<2x4x3xf32>
  %dk = tg.batch_matmul %ds, %q {transpose_a = true} : tensor<2x4x4xf32>, tensor<2x4x3xf32>
  %e = tg.exp %ds : tensor<2x4x4xf32>
  return %o, %dq, %dk, %dv, %e : tensor<2x4x5xf32>, tensor<2x4x3xf32>, tensor<2x4x3xf32>, tensor<2x4x5xf32>, tensor<2x4x4xf32>
}

// dp and dv come before q is computed (valid, as they do not read it): the
// gradient's op would go before dp and read q before it exists, so
// nothing is fused.
// CHECK-LABEL: func.func @q_after_gradient(
// CHECK-NOT: amprt.attention
// CHECK: return
func.func @q_after_gradient(%x: tensor<2x4x3xf32>, %k: tensor<2x4x3xf32>, %v: tensor<2x4x5xf32>, %do: tensor<2x4x5xf32>)
    -> (tensor<2x4x5xf32>, tensor<2x4x3xf32>, tensor<2x4x3xf32>, tensor<2x4x5xf32>) {
  %dp = tg.batch_matmul %do, %v {transpose_b = true} : tensor<2x4x5xf32>, tensor<2x4x5xf32>
  %q = tg.neg %x : tensor<2x4x3xf32>
  %s = tg.batch_matmul %q, %k {transpose_b = true} : tensor<2x4x3xf32>, tensor<2x4x3xf32>
  %p = tg.softmax %s {causal} : tensor<2x4x4xf32>
  %o = tg.batch_matmul %p, %v : tensor<2x4x4xf32>, tensor<2x4x5xf32>
  %dv = tg.batch_matmul %p, %do {transpose_a = true} : tensor<2x4x4xf32>, tensor<2x4x5xf32>
  %ds = tg.softmax_grad %dp, %p : tensor<2x4x4xf32>
  %dq = tg.batch_matmul %ds, %k : tensor<2x4x4xf32>, tensor<2x4x3xf32>
  %dk = tg.batch_matmul %ds, %q {transpose_a = true} : tensor<2x4x4xf32>, tensor<2x4x3xf32>
  return %o, %dq, %dk, %dv : tensor<2x4x5xf32>, tensor<2x4x3xf32>, tensor<2x4x3xf32>, tensor<2x4x5xf32>
}
