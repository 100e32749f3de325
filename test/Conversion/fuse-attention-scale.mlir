// --amp-fuse-for-runtime folds attention's scaling into amprt.attention's
// and amprt.attention_grad's `scale`: a constant scalar tg.mul of the
// scores before the softmax (softmax(c q k^T), with autodiff's tg.mul of
// ds by c before dq and dk) or of q before its product (softmax((c q)
// k^T), with autodiff's tg.mul of dq by c), either operand the constant.
// The multiplications, and the transposes only they read, go. A factor
// that is not a one-element constant, a scaled tensor read elsewhere, or
// a gradient scaled by another constant leaves the ops unfused; where q's
// gradient is not scaled as autodiff writes it, q's scaling stays an op
// and the fused ops read its result.
// RUN: amp-opt %s --amp-fuse-for-runtime=attention-min-keys=1 | FileCheck %s

// CHECK-LABEL: func.func @scaled_scores(
// CHECK-NOT: tg.
// CHECK: %[[O:.*]] = amprt.attention %arg0 [0, 2, 4, 3, 12, 3, 1], %arg1 [0, 2, 4, 3, 12, 3, 1], %arg2 [0, 2, 4, 5, 20, 5, 1] into [0, 2, 4, 5, 20, 5, 1] {causal, scale = 5.000000e-01 : f64}
// CHECK-NEXT: %[[DQ:.*]], %[[DK:.*]], %[[DV:.*]] = amprt.attention_grad %arg0 [0, 2, 4, 3, 12, 3, 1], %arg1 [0, 2, 4, 3, 12, 3, 1], %arg2 [0, 2, 4, 5, 20, 5, 1], %arg3 [0, 2, 4, 5, 20, 5, 1] into [0, 2, 4, 3, 12, 3, 1], [0, 2, 4, 3, 12, 3, 1], [0, 2, 4, 5, 20, 5, 1] {causal, scale = 5.000000e-01 : f64}
// CHECK-NEXT: return %[[O]], %[[DQ]], %[[DK]], %[[DV]]
func.func @scaled_scores(%q: tensor<2x4x3xf32>, %k: tensor<2x4x3xf32>, %v: tensor<2x4x5xf32>, %do: tensor<2x4x5xf32>)
    -> (tensor<2x4x5xf32>, tensor<2x4x3xf32>, tensor<2x4x3xf32>, tensor<2x4x5xf32>) {
  %c = arith.constant dense<0.5> : tensor<f32>
  %s = tg.batch_matmul %q, %k {transpose_b = true} : tensor<2x4x3xf32>, tensor<2x4x3xf32>
  %ss = tg.mul %s, %c : tensor<2x4x4xf32>, tensor<f32>
  %p = tg.softmax %ss {causal} : tensor<2x4x4xf32>
  %o = tg.batch_matmul %p, %v : tensor<2x4x4xf32>, tensor<2x4x5xf32>
  %dp = tg.batch_matmul %do, %v {transpose_b = true} : tensor<2x4x5xf32>, tensor<2x4x5xf32>
  %dv = tg.batch_matmul %p, %do {transpose_a = true} : tensor<2x4x4xf32>, tensor<2x4x5xf32>
  %dss = tg.softmax_grad %dp, %p : tensor<2x4x4xf32>
  %ds = tg.mul %dss, %c : tensor<2x4x4xf32>, tensor<f32>
  %dq = tg.batch_matmul %ds, %k : tensor<2x4x4xf32>, tensor<2x4x3xf32>
  %dk = tg.batch_matmul %ds, %q {transpose_a = true} : tensor<2x4x4xf32>, tensor<2x4x3xf32>
  return %o, %dq, %dk, %dv : tensor<2x4x5xf32>, tensor<2x4x3xf32>, tensor<2x4x3xf32>, tensor<2x4x5xf32>
}

// The GPT model's form: q's heads transposed out of the projection, then
// scaled (bf16, the constant first here); dq scaled by the same constant
// and transposed back. The fused ops read q's heads in the projection.
// CHECK-LABEL: func.func @scaled_q(
// CHECK-NOT: tg.
// CHECK: %[[O:.*]] = amprt.attention %arg0 [0, 2, 3, 5, 4, 180, 4, 36, 1], %arg0 [12, 2, 3, 5, 4, 180, 4, 36, 1], %arg0 [24, 2, 3, 5, 4, 180, 4, 36, 1] into [0, 2, 3, 5, 4, 60, 4, 12, 1] {causal, scale = 2.500000e-01 : f64}
// CHECK-NEXT: %[[DQ:.*]], %[[DK:.*]], %[[DV:.*]] = amprt.attention_grad %arg0 [0, 2, 3, 5, 4, 180, 4, 36, 1], %arg0 [12, 2, 3, 5, 4, 180, 4, 36, 1], %arg0 [24, 2, 3, 5, 4, 180, 4, 36, 1], %arg1 [0, 2, 3, 5, 4, 60, 4, 12, 1] into [0, 2, 3, 5, 4, 60, 4, 12, 1], [0, 2, 3, 5, 4, 60, 4, 12, 1], [0, 2, 3, 5, 4, 60, 4, 12, 1] {causal, scale = 2.500000e-01 : f64}
// CHECK-NOT: tg.
// CHECK: return %[[O]], %[[DQ]], %[[DK]], %[[DV]]
func.func @scaled_q(%qkv: tensor<10x36xbf16>, %go: tensor<2x5x3x4xbf16>)
    -> (tensor<2x5x3x4xbf16>, tensor<2x5x3x4xbf16>, tensor<2x5x3x4xbf16>, tensor<2x5x3x4xbf16>) {
  %c = arith.constant dense<0.25> : tensor<bf16>
  %q0 = tg.slice %qkv {offsets = array<i64: 0, 0>, sizes = array<i64: 10, 12>} : tensor<10x36xbf16>
  %q1 = tg.reshape %q0 : tensor<10x12xbf16> -> tensor<2x5x3x4xbf16>
  %q2 = tg.transpose %q1 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x5x3x4xbf16>
  %q = tg.mul %c, %q2 : tensor<bf16>, tensor<2x3x5x4xbf16>
  %k0 = tg.slice %qkv {offsets = array<i64: 0, 12>, sizes = array<i64: 10, 12>} : tensor<10x36xbf16>
  %k1 = tg.reshape %k0 : tensor<10x12xbf16> -> tensor<2x5x3x4xbf16>
  %k = tg.transpose %k1 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x5x3x4xbf16>
  %v0 = tg.slice %qkv {offsets = array<i64: 0, 24>, sizes = array<i64: 10, 12>} : tensor<10x36xbf16>
  %v1 = tg.reshape %v0 : tensor<10x12xbf16> -> tensor<2x5x3x4xbf16>
  %v = tg.transpose %v1 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x5x3x4xbf16>
  %s = tg.batch_matmul %q, %k {transpose_b = true} : tensor<2x3x5x4xbf16>, tensor<2x3x5x4xbf16>
  %p = tg.softmax %s {causal} : tensor<2x3x5x5xbf16>
  %o = tg.batch_matmul %p, %v : tensor<2x3x5x5xbf16>, tensor<2x3x5x4xbf16>
  %om = tg.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<2x3x5x4xbf16>
  %do = tg.transpose %go {perm = array<i64: 0, 2, 1, 3>} : tensor<2x5x3x4xbf16>
  %dp = tg.batch_matmul %do, %v {transpose_b = true} : tensor<2x3x5x4xbf16>, tensor<2x3x5x4xbf16>
  %dv = tg.batch_matmul %p, %do {transpose_a = true} : tensor<2x3x5x5xbf16>, tensor<2x3x5x4xbf16>
  %ds = tg.softmax_grad %dp, %p : tensor<2x3x5x5xbf16>
  %dqs = tg.batch_matmul %ds, %k : tensor<2x3x5x5xbf16>, tensor<2x3x5x4xbf16>
  %dk = tg.batch_matmul %ds, %q {transpose_a = true} : tensor<2x3x5x5xbf16>, tensor<2x3x5x4xbf16>
  %dq = tg.mul %dqs, %c : tensor<2x3x5x4xbf16>, tensor<bf16>
  %dqm = tg.transpose %dq {perm = array<i64: 0, 2, 1, 3>} : tensor<2x3x5x4xbf16>
  %dkm = tg.transpose %dk {perm = array<i64: 0, 2, 1, 3>} : tensor<2x3x5x4xbf16>
  %dvm = tg.transpose %dv {perm = array<i64: 0, 2, 1, 3>} : tensor<2x3x5x4xbf16>
  return %om, %dqm, %dkm, %dvm : tensor<2x5x3x4xbf16>, tensor<2x5x3x4xbf16>, tensor<2x5x3x4xbf16>, tensor<2x5x3x4xbf16>
}

// Both scaled, the factor a one-element tensor<1xf32>: the scale is their
// product. A forward alone.
// CHECK-LABEL: func.func @both_scaled(
// CHECK-NOT: tg.
// CHECK: %[[O:.*]] = amprt.attention %arg0 {{.*}} {scale = 1.500000e+00 : f64}
// CHECK-NEXT: return %[[O]]
func.func @both_scaled(%q: tensor<2x4x3xf32>, %k: tensor<2x4x3xf32>, %v: tensor<2x4x5xf32>) -> tensor<2x4x5xf32> {
  %c = arith.constant dense<0.5> : tensor<1xf32>
  %three = arith.constant dense<3.0> : tensor<f32>
  %qs = tg.mul %q, %three : tensor<2x4x3xf32>, tensor<f32>
  %s = tg.batch_matmul %qs, %k {transpose_b = true} : tensor<2x4x3xf32>, tensor<2x4x3xf32>
  %ss = tg.mul %s, %c : tensor<2x4x4xf32>, tensor<1xf32>
  %p = tg.softmax %ss : tensor<2x4x4xf32>
  %o = tg.batch_matmul %p, %v : tensor<2x4x4xf32>, tensor<2x4x5xf32>
  return %o : tensor<2x4x5xf32>
}

// A forward alone whose scaled q is read elsewhere: fused, and the
// scaling kept for its other reader.
// CHECK-LABEL: func.func @scaled_q_read_elsewhere(
// CHECK: %[[QS:.*]] = tg.mul %arg0
// CHECK-NEXT: %[[O:.*]] = amprt.attention %arg0 {{.*}} {scale = 3.000000e+00 : f64}
// CHECK-NEXT: return %[[O]], %[[QS]]
func.func @scaled_q_read_elsewhere(%q: tensor<2x4x3xf32>, %k: tensor<2x4x3xf32>, %v: tensor<2x4x5xf32>)
    -> (tensor<2x4x5xf32>, tensor<2x4x3xf32>) {
  %three = arith.constant dense<3.0> : tensor<f32>
  %qs = tg.mul %q, %three : tensor<2x4x3xf32>, tensor<f32>
  %s = tg.batch_matmul %qs, %k {transpose_b = true} : tensor<2x4x3xf32>, tensor<2x4x3xf32>
  %p = tg.softmax %s : tensor<2x4x4xf32>
  %o = tg.batch_matmul %p, %v : tensor<2x4x4xf32>, tensor<2x4x5xf32>
  return %o, %qs : tensor<2x4x5xf32>, tensor<2x4x3xf32>
}

// q scaled, but its gradient is the unscaled ds k (a hand-written step):
// q's scaling stays, the fused ops read its result with no scale.
// CHECK-LABEL: func.func @q_gradient_not_scaled(
// CHECK: %[[QS:.*]] = tg.mul %arg0
// CHECK-NEXT: %[[O:.*]] = amprt.attention %[[QS]] [0, 2, 4, 3, 12, 3, 1], %arg1 {{.*}} into [0, 2, 4, 5, 20, 5, 1] :
// CHECK-NEXT: amprt.attention_grad %[[QS]] {{.*}} into [0, 2, 4, 3, 12, 3, 1], [0, 2, 4, 3, 12, 3, 1], [0, 2, 4, 5, 20, 5, 1] :
// CHECK-NOT: tg.
// CHECK: return
func.func @q_gradient_not_scaled(%q: tensor<2x4x3xf32>, %k: tensor<2x4x3xf32>, %v: tensor<2x4x5xf32>, %do: tensor<2x4x5xf32>)
    -> (tensor<2x4x5xf32>, tensor<2x4x3xf32>, tensor<2x4x3xf32>, tensor<2x4x5xf32>) {
  %three = arith.constant dense<3.0> : tensor<f32>
  %qs = tg.mul %q, %three : tensor<2x4x3xf32>, tensor<f32>
  %s = tg.batch_matmul %qs, %k {transpose_b = true} : tensor<2x4x3xf32>, tensor<2x4x3xf32>
  %p = tg.softmax %s : tensor<2x4x4xf32>
  %o = tg.batch_matmul %p, %v : tensor<2x4x4xf32>, tensor<2x4x5xf32>
  %dp = tg.batch_matmul %do, %v {transpose_b = true} : tensor<2x4x5xf32>, tensor<2x4x5xf32>
  %dv = tg.batch_matmul %p, %do {transpose_a = true} : tensor<2x4x4xf32>, tensor<2x4x5xf32>
  %ds = tg.softmax_grad %dp, %p : tensor<2x4x4xf32>
  %dq = tg.batch_matmul %ds, %k : tensor<2x4x4xf32>, tensor<2x4x3xf32>
  %dk = tg.batch_matmul %ds, %qs {transpose_a = true} : tensor<2x4x4xf32>, tensor<2x4x3xf32>
  return %o, %dq, %dk, %dv : tensor<2x4x5xf32>, tensor<2x4x3xf32>, tensor<2x4x3xf32>, tensor<2x4x5xf32>
}

// Refused: a factor that is an argument, not a constant.
// CHECK-LABEL: func.func @factor_not_constant(
// CHECK-NOT: amprt.attention
// CHECK: tg.softmax
// CHECK-NOT: amprt.attention
// CHECK: return
func.func @factor_not_constant(%q: tensor<2x4x3xf32>, %k: tensor<2x4x3xf32>, %v: tensor<2x4x5xf32>, %c: tensor<f32>) -> tensor<2x4x5xf32> {
  %s = tg.batch_matmul %q, %k {transpose_b = true} : tensor<2x4x3xf32>, tensor<2x4x3xf32>
  %ss = tg.mul %s, %c : tensor<2x4x4xf32>, tensor<f32>
  %p = tg.softmax %ss : tensor<2x4x4xf32>
  %o = tg.batch_matmul %p, %v : tensor<2x4x4xf32>, tensor<2x4x5xf32>
  return %o : tensor<2x4x5xf32>
}

// Refused: the scaled scores read by another op as well.
// CHECK-LABEL: func.func @scaled_scores_read_elsewhere(
// CHECK-NOT: amprt.attention
// CHECK: return
func.func @scaled_scores_read_elsewhere(%q: tensor<2x4x3xf32>, %k: tensor<2x4x3xf32>, %v: tensor<2x4x5xf32>)
    -> (tensor<2x4x5xf32>, tensor<2x4x4xf32>) {
  %c = arith.constant dense<0.5> : tensor<f32>
  %s = tg.batch_matmul %q, %k {transpose_b = true} : tensor<2x4x3xf32>, tensor<2x4x3xf32>
  %ss = tg.mul %s, %c : tensor<2x4x4xf32>, tensor<f32>
  %p = tg.softmax %ss : tensor<2x4x4xf32>
  %o = tg.batch_matmul %p, %v : tensor<2x4x4xf32>, tensor<2x4x5xf32>
  return %o, %ss : tensor<2x4x5xf32>, tensor<2x4x4xf32>
}

// Refused: the gradient's ds scaled by another constant than the scores.
// CHECK-LABEL: func.func @gradient_scaled_otherwise(
// CHECK-NOT: amprt.attention
// CHECK: tg.softmax_grad
// CHECK-NOT: amprt.attention
// CHECK: return
func.func @gradient_scaled_otherwise(%q: tensor<2x4x3xf32>, %k: tensor<2x4x3xf32>, %v: tensor<2x4x5xf32>, %do: tensor<2x4x5xf32>)
    -> (tensor<2x4x5xf32>, tensor<2x4x3xf32>, tensor<2x4x3xf32>, tensor<2x4x5xf32>) {
  %c = arith.constant dense<0.5> : tensor<f32>
  %c2 = arith.constant dense<0.25> : tensor<f32>
  %s = tg.batch_matmul %q, %k {transpose_b = true} : tensor<2x4x3xf32>, tensor<2x4x3xf32>
  %ss = tg.mul %s, %c : tensor<2x4x4xf32>, tensor<f32>
  %p = tg.softmax %ss : tensor<2x4x4xf32>
  %o = tg.batch_matmul %p, %v : tensor<2x4x4xf32>, tensor<2x4x5xf32>
  %dp = tg.batch_matmul %do, %v {transpose_b = true} : tensor<2x4x5xf32>, tensor<2x4x5xf32>
  %dv = tg.batch_matmul %p, %do {transpose_a = true} : tensor<2x4x4xf32>, tensor<2x4x5xf32>
  %dss = tg.softmax_grad %dp, %p : tensor<2x4x4xf32>
  %ds = tg.mul %dss, %c2 : tensor<2x4x4xf32>, tensor<f32>
  %dq = tg.batch_matmul %ds, %k : tensor<2x4x4xf32>, tensor<2x4x3xf32>
  %dk = tg.batch_matmul %ds, %q {transpose_a = true} : tensor<2x4x4xf32>, tensor<2x4x3xf32>
  return %o, %dq, %dk, %dv : tensor<2x4x5xf32>, tensor<2x4x3xf32>, tensor<2x4x3xf32>, tensor<2x4x5xf32>
}

// Refused: a scale the runtime cannot take (not finite in f32), here two
// factors whose product overflows it.
// CHECK-LABEL: func.func @scale_not_finite(
// CHECK-NOT: amprt.attention
// CHECK: return
func.func @scale_not_finite(%q: tensor<2x4x3xf32>, %k: tensor<2x4x3xf32>, %v: tensor<2x4x5xf32>) -> tensor<2x4x5xf32> {
  %big = arith.constant dense<1.0e30> : tensor<f32>
  %qs = tg.mul %q, %big : tensor<2x4x3xf32>, tensor<f32>
  %s = tg.batch_matmul %qs, %k {transpose_b = true} : tensor<2x4x3xf32>, tensor<2x4x3xf32>
  %ss = tg.mul %s, %big : tensor<2x4x4xf32>, tensor<f32>
  %p = tg.softmax %ss : tensor<2x4x4xf32>
  %o = tg.batch_matmul %p, %v : tensor<2x4x4xf32>, tensor<2x4x5xf32>
  return %o : tensor<2x4x5xf32>
}

// The constant first in both the scores' and ds's scaling.
// CHECK-LABEL: func.func @scaled_scores_constant_first(
// CHECK-NOT: tg.
// CHECK: amprt.attention {{.*}} {scale = 5.000000e-01 : f64}
// CHECK-NEXT: amprt.attention_grad {{.*}} {scale = 5.000000e-01 : f64}
// CHECK-NOT: tg.
// CHECK: return
func.func @scaled_scores_constant_first(%q: tensor<2x4x3xf32>, %k: tensor<2x4x3xf32>, %v: tensor<2x4x5xf32>, %do: tensor<2x4x5xf32>)
    -> (tensor<2x4x5xf32>, tensor<2x4x3xf32>, tensor<2x4x3xf32>, tensor<2x4x5xf32>) {
  %c = arith.constant dense<0.5> : tensor<f32>
  %s = tg.batch_matmul %q, %k {transpose_b = true} : tensor<2x4x3xf32>, tensor<2x4x3xf32>
  %ss = tg.mul %c, %s : tensor<f32>, tensor<2x4x4xf32>
  %p = tg.softmax %ss : tensor<2x4x4xf32>
  %o = tg.batch_matmul %p, %v : tensor<2x4x4xf32>, tensor<2x4x5xf32>
  %dp = tg.batch_matmul %do, %v {transpose_b = true} : tensor<2x4x5xf32>, tensor<2x4x5xf32>
  %dv = tg.batch_matmul %p, %do {transpose_a = true} : tensor<2x4x4xf32>, tensor<2x4x5xf32>
  %dss = tg.softmax_grad %dp, %p : tensor<2x4x4xf32>
  %ds = tg.mul %c, %dss : tensor<f32>, tensor<2x4x4xf32>
  %dq = tg.batch_matmul %ds, %k : tensor<2x4x4xf32>, tensor<2x4x3xf32>
  %dk = tg.batch_matmul %ds, %q {transpose_a = true} : tensor<2x4x4xf32>, tensor<2x4x3xf32>
  return %o, %dq, %dk, %dv : tensor<2x4x5xf32>, tensor<2x4x3xf32>, tensor<2x4x3xf32>, tensor<2x4x5xf32>
}

// q and k one value, scaled: the scores are (c x)(c x)^T, so the fused op
// reads x as q with the scale and the scaled tensor as k.
// CHECK-LABEL: func.func @scaled_self(
// CHECK: %[[XS:.*]] = tg.mul %arg0
// CHECK-NEXT: amprt.attention %arg0 {{.*}}, %[[XS]] {{.*}} {scale = 2.500000e-01 : f64}
func.func @scaled_self(%x: tensor<2x4x3xf32>, %v: tensor<2x4x5xf32>) -> tensor<2x4x5xf32> {
  %c = arith.constant dense<0.25> : tensor<f32>
  %xs = tg.mul %x, %c : tensor<2x4x3xf32>, tensor<f32>
  %s = tg.batch_matmul %xs, %xs {transpose_b = true} : tensor<2x4x3xf32>, tensor<2x4x3xf32>
  %p = tg.softmax %s : tensor<2x4x4xf32>
  %o = tg.batch_matmul %p, %v : tensor<2x4x4xf32>, tensor<2x4x5xf32>
  return %o : tensor<2x4x5xf32>
}

// An f64 product is scaled only by a factor the runtime's f32 holds
// exactly: 0.5 folds, 0.1 does not (and the scores stay unfused).
// CHECK-LABEL: func.func @f64_factors(
// CHECK: amprt.attention {{.*}} {scale = 5.000000e-01 : f64}
// CHECK: tg.softmax
// CHECK-NOT: amprt.attention
// CHECK: return
func.func @f64_factors(%q: tensor<2x4x3xf64>, %k: tensor<2x4x3xf64>, %v: tensor<2x4x5xf64>) -> (tensor<2x4x5xf64>, tensor<2x4x5xf64>) {
  %half = arith.constant dense<0.5> : tensor<f64>
  %tenth = arith.constant dense<0.1> : tensor<f64>
  %s = tg.batch_matmul %q, %k {transpose_b = true} : tensor<2x4x3xf64>, tensor<2x4x3xf64>
  %ss = tg.mul %s, %half : tensor<2x4x4xf64>, tensor<f64>
  %p = tg.softmax %ss : tensor<2x4x4xf64>
  %o = tg.batch_matmul %p, %v : tensor<2x4x4xf64>, tensor<2x4x5xf64>
  %s2 = tg.batch_matmul %q, %k {transpose_b = true} : tensor<2x4x3xf64>, tensor<2x4x3xf64>
  %ss2 = tg.mul %s2, %tenth : tensor<2x4x4xf64>, tensor<f64>
  %p2 = tg.softmax %ss2 : tensor<2x4x4xf64>
  %o2 = tg.batch_matmul %p2, %v : tensor<2x4x4xf64>, tensor<2x4x5xf64>
  return %o, %o2 : tensor<2x4x5xf64>, tensor<2x4x5xf64>
}

// Refused: a factor of several elements (one per key), and one that
// broadcasts the scores to a higher rank.
// CHECK-LABEL: func.func @factor_not_scalar(
// CHECK-NOT: amprt.attention
// CHECK: return
func.func @factor_not_scalar(%q: tensor<2x4x3xf32>, %k: tensor<2x4x3xf32>, %v: tensor<2x4x5xf32>)
    -> (tensor<2x4x5xf32>, tensor<1x2x4x5xf32>) {
  %keys = arith.constant dense<[0.5, 1.0, 2.0, 4.0]> : tensor<4xf32>
  %s = tg.batch_matmul %q, %k {transpose_b = true} : tensor<2x4x3xf32>, tensor<2x4x3xf32>
  %ss = tg.mul %s, %keys : tensor<2x4x4xf32>, tensor<4xf32>
  %p = tg.softmax %ss : tensor<2x4x4xf32>
  %o = tg.batch_matmul %p, %v : tensor<2x4x4xf32>, tensor<2x4x5xf32>
  %wide = arith.constant dense<0.5> : tensor<1x1x1x1xf32>
  %s2 = tg.batch_matmul %q, %k {transpose_b = true} : tensor<2x4x3xf32>, tensor<2x4x3xf32>
  %ss2 = tg.mul %s2, %wide : tensor<2x4x4xf32>, tensor<1x1x1x1xf32>
  %p2 = tg.softmax %ss2 : tensor<1x2x4x4xf32>
  %v2 = tg.reshape %v : tensor<2x4x5xf32> -> tensor<1x2x4x5xf32>
  %o2 = tg.batch_matmul %p2, %v2 : tensor<1x2x4x4xf32>, tensor<1x2x4x5xf32>
  return %o, %o2 : tensor<2x4x5xf32>, tensor<1x2x4x5xf32>
}

// Refused: the score gradient returned, its one reader not the scaling
// the scores' scaling needs.
// CHECK-LABEL: func.func @score_gradient_returned(
// CHECK-NOT: amprt.attention
// CHECK: return
func.func @score_gradient_returned(%q: tensor<2x4x3xf32>, %k: tensor<2x4x3xf32>, %v: tensor<2x4x5xf32>, %do: tensor<2x4x5xf32>)
    -> (tensor<2x4x5xf32>, tensor<2x4x4xf32>, tensor<2x4x5xf32>) {
  %c = arith.constant dense<0.5> : tensor<f32>
  %s = tg.batch_matmul %q, %k {transpose_b = true} : tensor<2x4x3xf32>, tensor<2x4x3xf32>
  %ss = tg.mul %s, %c : tensor<2x4x4xf32>, tensor<f32>
  %p = tg.softmax %ss : tensor<2x4x4xf32>
  %o = tg.batch_matmul %p, %v : tensor<2x4x4xf32>, tensor<2x4x5xf32>
  %dp = tg.batch_matmul %do, %v {transpose_b = true} : tensor<2x4x5xf32>, tensor<2x4x5xf32>
  %dv = tg.batch_matmul %p, %do {transpose_a = true} : tensor<2x4x4xf32>, tensor<2x4x5xf32>
  %dss = tg.softmax_grad %dp, %p : tensor<2x4x4xf32>
  return %o, %dss, %dv : tensor<2x4x5xf32>, tensor<2x4x4xf32>, tensor<2x4x5xf32>
}
