// A returned tg.reshape (every reshape with `reshape-views=0`) whose input
// dies at it takes the input's storage (amprt_reshape_moving) instead of
// copying it; an input that is read again, is a step argument or is
// returned is copied (amprt_reshape). Reshapes that are not returned are
// views (lower-reshape-view.mlir).
// RUN: amp-opt %s --amp-lower-to-runtime | FileCheck %s
// RUN: amp-opt %s --amp-lower-to-runtime="reshape-views=0" | FileCheck %s

// CHECK-LABEL: func.func @dies(
// CHECK: %[[R:.*]] = call @amprt_tensor_new
// CHECK: call @amprt_relu(%{{.*}}, %{{.*}}, %[[R]])
// CHECK: %[[V:.*]] = call @amprt_tensor_new
// CHECK: call @amprt_reshape_moving(%{{.*}}, %[[R]], %[[V]])
// CHECK: call @amprt_tensor_release(%[[R]])
// CHECK-NOT: call @amprt_reshape(
func.func @dies(%x: tensor<2x3x4xf32>) -> tensor<6x4xf32> {
  %r = tg.relu %x : tensor<2x3x4xf32>
  %v = tg.reshape %r : tensor<2x3x4xf32> -> tensor<6x4xf32>
  return %v : tensor<6x4xf32>
}

// %r is read again after the reshape, and %x is an argument: copies.
// CHECK-LABEL: func.func @live(
// CHECK: call @amprt_reshape(
// CHECK: call @amprt_reshape(
// CHECK-NOT: amprt_reshape_moving
func.func @live(%x: tensor<2x3xf32>)
    -> (tensor<6xf32>, tensor<2x3xf32>, tensor<6xf32>) {
  %r = tg.relu %x : tensor<2x3xf32>
  %v = tg.reshape %r : tensor<2x3xf32> -> tensor<6xf32>
  %t = tg.add %r, %r : tensor<2x3xf32>
  %a = tg.reshape %x : tensor<2x3xf32> -> tensor<6xf32>
  return %v, %t, %a : tensor<6xf32>, tensor<2x3xf32>, tensor<6xf32>
}

// A returned value is the caller's: never moved from.
// CHECK-LABEL: func.func @returned(
// CHECK: call @amprt_reshape(
// CHECK-NOT: amprt_reshape_moving
func.func @returned(%x: tensor<2x3xf32>) -> (tensor<6xf32>, tensor<2x3xf32>) {
  %r = tg.relu %x : tensor<2x3xf32>
  %v = tg.reshape %r : tensor<2x3xf32> -> tensor<6xf32>
  return %v, %r : tensor<6xf32>, tensor<2x3xf32>
}
