// A tg.select whose picked operand dies at it lets the result take that
// operand's storage (amprt_select_moving with a flag per operand); one
// whose operands stay live, or are step arguments, copies (amprt_select).
// The loss-scaling guard tg.select(finite, new, old) is the first kind.
// RUN: amp-opt %s --amp-lower-to-runtime | FileCheck %s

// CHECK-LABEL: func.func @guard(
// CHECK: %[[NEW:.*]] = call @amprt_tensor_new
// CHECK: call @amprt_sgd_update(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[NEW]])
// CHECK: %[[SEL:.*]] = call @amprt_tensor_new
// CHECK: %[[ADIES:.*]] = arith.constant 1 : i32
// CHECK: %[[BDIES:.*]] = arith.constant 0 : i32
// CHECK: call @amprt_select_moving(%{{.*}}, %{{.*}}, %[[NEW]], %{{.*}}, %[[SEL]], %[[ADIES]], %[[BDIES]])
// CHECK: call @amprt_tensor_release(%[[NEW]])
// CHECK-NOT: call @amprt_select(
func.func @guard(%w: tensor<16xf32>, %g: tensor<16xf32>, %lr: tensor<f32>,
                 %finite: tensor<i1>) -> tensor<16xf32> {
  %new = tg.sgd_update %w, %g, %lr : tensor<16xf32>
  %kept = tg.select %finite, %new, %w : tensor<i1>, tensor<16xf32>
  return %kept : tensor<16xf32>
}

// %r is read again after the select and %x is an argument: a copy.
// CHECK-LABEL: func.func @live(
// CHECK: call @amprt_select(
// CHECK-NOT: amprt_select_moving
func.func @live(%c: tensor<4xi1>, %x: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>) {
  %r = tg.relu %x : tensor<4xf32>
  %s = tg.select %c, %r, %x : tensor<4xi1>, tensor<4xf32>
  %t = tg.add %s, %r : tensor<4xf32>
  return %s, %t : tensor<4xf32>, tensor<4xf32>
}

// A returned value is the caller's: never moved from.
// CHECK-LABEL: func.func @returned(
// CHECK: call @amprt_select(
// CHECK-NOT: amprt_select_moving
func.func @returned(%c: tensor<i1>, %x: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>) {
  %r = tg.relu %x : tensor<4xf32>
  %s = tg.select %c, %r, %x : tensor<i1>, tensor<4xf32>
  return %s, %r : tensor<4xf32>, tensor<4xf32>
}
