// Folds and canonicalizations of tg ops that are exact for every input.
// RUN: amp-opt %s --canonicalize --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @reshape_chain
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
func.func @reshape_chain(%x: tensor<4x8xf32>) -> (tensor<2x16xf32>, tensor<4x8xf32>) {
  // CHECK: %[[R:.*]] = tg.reshape %[[X]] : tensor<4x8xf32> -> tensor<2x16xf32>
  // CHECK-NOT: tg.reshape
  // CHECK: return %[[R]], %[[X]]
  %a = tg.reshape %x : tensor<4x8xf32> -> tensor<32xf32>
  %b = tg.reshape %a : tensor<32xf32> -> tensor<2x16xf32>
  %c = tg.reshape %x : tensor<4x8xf32> -> tensor<4x8xf32>
  return %b, %c : tensor<2x16xf32>, tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_constant
func.func @reshape_constant() -> tensor<2x2xf32> {
  // CHECK: %[[C:.*]] = arith.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
  // CHECK: return %[[C]]
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %r = tg.reshape %c : tensor<4xf32> -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// -----

// CHECK-LABEL: func.func @identity_transpose
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
func.func @identity_transpose(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  // CHECK-NOT: tg.transpose
  // CHECK: return %[[X]], %[[X]]
  %t = tg.transpose %x {perm = array<i64: 0, 1>} : tensor<4x8xf32>
  %a = tg.transpose %x {perm = array<i64: 1, 0>} : tensor<4x8xf32>
  %b = tg.transpose %a {perm = array<i64: 1, 0>} : tensor<8x4xf32>
  return %t, %b : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @compose_transposes
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
func.func @compose_transposes(%x: tensor<2x3x4xf32>) -> tensor<3x4x2xf32> {
  // CHECK: %[[T:.*]] = tg.transpose %[[X]] {perm = array<i64: 1, 2, 0>} : tensor<2x3x4xf32>
  // CHECK-NOT: tg.transpose
  // CHECK: return %[[T]]
  %a = tg.transpose %x {perm = array<i64: 2, 0, 1>} : tensor<2x3x4xf32>
  %b = tg.transpose %a {perm = array<i64: 2, 0, 1>} : tensor<4x2x3xf32>
  return %b : tensor<3x4x2xf32>
}

// -----

// CHECK-LABEL: func.func @broadcast_same_type
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
func.func @broadcast_same_type(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<2x3xf32>) {
  // CHECK-DAG: %[[C:.*]] = arith.constant dense<5.000000e-01> : tensor<2x3xf32>
  // CHECK-NOT: tg.broadcast_to
  // CHECK: return %[[X]], %[[C]]
  %b = tg.broadcast_to %x : tensor<4x8xf32> -> tensor<4x8xf32>
  %s = arith.constant dense<0.5> : tensor<f32>
  %c = tg.broadcast_to %s : tensor<f32> -> tensor<2x3xf32>
  return %b, %c : tensor<4x8xf32>, tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @mul_by_one
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
func.func @mul_by_one(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %one = arith.constant dense<1.0> : tensor<4x8xf32>
  %one_s = arith.constant dense<1.0> : tensor<f32>
  %two = arith.constant dense<2.0> : tensor<f32>
  %a = tg.mul %x, %one : tensor<4x8xf32>
  %b = tg.mul %one_s, %x : tensor<f32>, tensor<4x8xf32>
  // Multiplying by two is not an identity and stays.
  // CHECK: %[[C:.*]] = tg.mul %[[X]], %{{.*}} : tensor<4x8xf32>, tensor<f32>
  %c = tg.mul %x, %two : tensor<4x8xf32>, tensor<f32>
  // CHECK: return %[[X]], %[[X]], %[[C]]
  return %a, %b, %c : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// A splat-one operand that would broadcast the other operand is not folded.
// CHECK-LABEL: func.func @mul_by_one_broadcasting
func.func @mul_by_one_broadcasting(%x: tensor<8xf32>) -> tensor<4x8xf32> {
  // CHECK: tg.mul
  %one = arith.constant dense<1.0> : tensor<4x8xf32>
  %a = tg.mul %x, %one : tensor<8xf32>, tensor<4x8xf32>
  return %a : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @double_negation
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
func.func @double_negation(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK-NOT: tg.neg
  // CHECK: return %[[X]]
  %a = tg.neg %x : tensor<4xf32>
  %b = tg.neg %a : tensor<4xf32>
  return %b : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @constant_select
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>)
func.func @constant_select(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // CHECK-NOT: tg.select
  // CHECK: return %[[A]], %[[B]]
  %t = arith.constant dense<true> : tensor<4xi1>
  %f = arith.constant dense<false> : tensor<4xi1>
  %x = tg.select %t, %a, %b : tensor<4xi1>, tensor<4xf32>
  %y = tg.select %f, %a, %b : tensor<4xi1>, tensor<4xf32>
  return %x, %y : tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @trivial_shape_ops
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
func.func @trivial_shape_ops(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  // CHECK-NOT: tg.concat
  // CHECK-NOT: tg.slice
  // CHECK-NOT: tg.reduce_sum
  // CHECK: return %[[X]], %[[X]], %[[X]]
  %c = tg.concat %x : tensor<4x8xf32>
  %s = tg.slice %x {offsets = array<i64: 0, 0>, sizes = array<i64: 4, 8>} : tensor<4x8xf32>
  %r = tg.reduce_sum %x {dims = array<i64>} : tensor<4x8xf32>
  return %c, %s, %r : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}
