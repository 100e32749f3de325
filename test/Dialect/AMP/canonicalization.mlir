// amp.cast folding: identity casts vanish, constants convert with IEEE
// round-to-nearest-even (overflow to inf), and cast chains fold only through
// an exact inner cast.
// RUN: amp-opt %s --canonicalize --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @same_type
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
func.func @same_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK-NOT: amp.cast
  // CHECK: return %[[X]]
  %y = amp.cast %x : tensor<4xf32> to tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @constant_to_f16
func.func @constant_to_f16() -> (tensor<4xf16>, tensor<2xbf16>) {
  // 1.0009765625 is a tie between two f16 values and rounds to even;
  // 70000 overflows to inf.
  // CHECK-DAG: arith.constant dense<[1.000000e+00, 1.000000e+00, 0x7C00, -2.500000e-01]> : tensor<4xf16>
  // CHECK-DAG: arith.constant dense<[3.140630e+00, 1.000000e+00]> : tensor<2xbf16>
  // CHECK-NOT: amp.cast
  %c = arith.constant dense<[1.0, 1.00048828125, 70000.0, -0.25]> : tensor<4xf32>
  %h = amp.cast %c : tensor<4xf32> to tensor<4xf16>
  %p = arith.constant dense<[3.14159, 1.0]> : tensor<2xf32>
  %b = amp.cast %p : tensor<2xf32> to tensor<2xbf16>
  return %h, %b : tensor<4xf16>, tensor<2xbf16>
}

// -----

// f16 -> f32 -> f16 is exact and folds to the input.
// CHECK-LABEL: func.func @widen_then_narrow
// CHECK-SAME: (%[[X:.*]]: tensor<4xf16>)
func.func @widen_then_narrow(%x: tensor<4xf16>) -> tensor<4xf16> {
  // CHECK-NOT: amp.cast
  // CHECK: return %[[X]]
  %a = amp.cast %x : tensor<4xf16> to tensor<4xf32>
  %b = amp.cast %a : tensor<4xf32> to tensor<4xf16>
  return %b : tensor<4xf16>
}

// -----

// f32 -> f16 -> f32 rounds and must stay.
// CHECK-LABEL: func.func @narrow_then_widen
func.func @narrow_then_widen(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: %[[A:.*]] = amp.cast %{{.*}} : tensor<4xf32> to tensor<4xf16>
  // CHECK: %[[B:.*]] = amp.cast %[[A]] : tensor<4xf16> to tensor<4xf32>
  // CHECK: return %[[B]]
  %a = amp.cast %x : tensor<4xf32> to tensor<4xf16>
  %b = amp.cast %a : tensor<4xf16> to tensor<4xf32>
  return %b : tensor<4xf32>
}

// -----

// f16 -> f32 -> bf16 is the same as f16 -> bf16: the inner cast is exact.
// CHECK-LABEL: func.func @exact_inner_cast
// CHECK-SAME: (%[[X:.*]]: tensor<4xf16>)
func.func @exact_inner_cast(%x: tensor<4xf16>) -> tensor<4xbf16> {
  // CHECK: %[[C:.*]] = amp.cast %[[X]] : tensor<4xf16> to tensor<4xbf16>
  // CHECK-NEXT: return %[[C]]
  %a = amp.cast %x : tensor<4xf16> to tensor<4xf32>
  %b = amp.cast %a : tensor<4xf32> to tensor<4xbf16>
  return %b : tensor<4xbf16>
}

// -----

// CHECK-LABEL: func.func @scale_by_one
// CHECK-SAME: (%[[G:.*]]: tensor<4xf32>, %[[H:.*]]: tensor<4xf16>)
func.func @scale_by_one(%g: tensor<4xf32>, %h: tensor<4xf16>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %one = arith.constant dense<1.0> : tensor<f32>
  %a = amp.scale %g, %one : tensor<4xf32>
  %b = amp.unscale %g, %one : tensor<4xf32>
  // Unscaling an f16 gradient still converts it to f32.
  // CHECK: %[[U:.*]] = amp.unscale %[[H]], %{{.*}} : tensor<4xf16>
  %c = amp.unscale %h, %one : tensor<4xf16>
  // CHECK: return %[[G]], %[[G]], %[[U]]
  return %a, %b, %c : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
