// An elementwise op whose operand of the result's type dies at it writes
// its result over that operand: no amprt_tensor_new for the result and no
// release of the operand. Step arguments, returned values, operands read
// again later and operands of another type (the broadcast side of a
// binary op, a bias) get a new tensor. in-place-elementwise=0 turns it off.
// Activation epilogues (lower-activation-epilogue.mlir) are off here: they
// would take the activations after the products into them.
// RUN: amp-opt %s --amp-lower-to-runtime=fuse-activation-epilogues=0 | FileCheck %s
// RUN: amp-opt %s --amp-lower-to-runtime="in-place-elementwise=0 fuse-activation-epilogues=0" | FileCheck %s --check-prefix=OFF

// A chain: the matmul result is overwritten by the tanh, the bias add, the
// relu, then by the add with a broadcast row. (A bias add reading a
// product directly runs in its epilogue: lower-bias-epilogue.mlir.)
// CHECK-LABEL: func.func @chain(
// CHECK: %[[M:.*]] = call @amprt_tensor_new
// CHECK: call @amprt_matmul(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[M]])
// CHECK-NOT: amprt_tensor_new
// CHECK: call @amprt_tanh(%{{.*}}, %[[M]], %[[M]])
// CHECK-NOT: amprt_tensor_new
// CHECK: call @amprt_bias_add(%{{.*}}, %[[M]], %{{.*}}, %{{.*}}, %[[M]])
// CHECK-NOT: amprt_tensor_new
// CHECK: call @amprt_relu(%{{.*}}, %[[M]], %[[M]])
// CHECK-NOT: amprt_tensor_new
// CHECK: call @amprt_add(%{{.*}}, %{{.*}}, %[[M]], %[[M]])
// CHECK-NOT: amprt_tensor_release(%[[M]])
// CHECK: return
// OFF-LABEL: func.func @chain(
// OFF-COUNT-5: call @amprt_tensor_new
// OFF: return
func.func @chain(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %b: tensor<16xf32>,
                 %row: tensor<16xf32>) -> tensor<4x16xf32> {
  %m = tg.matmul %x, %w : tensor<4x8xf32>, tensor<8x16xf32>
  %t = tg.tanh %m : tensor<4x16xf32>
  %mb = tg.bias_add %t, %b : tensor<4x16xf32>, tensor<16xf32>
  %r = tg.relu %mb : tensor<4x16xf32>
  %s = tg.add %row, %r : tensor<16xf32>, tensor<4x16xf32>
  return %s : tensor<4x16xf32>
}

// Arguments are the caller's, %r is read again after the first add, and
// %t is returned: each op gets a new tensor. The second add's operand %r
// dies there and has the result's type: it is overwritten.
// CHECK-LABEL: func.func @kept(
// CHECK: %[[R:.*]] = call @amprt_tensor_new
// CHECK: call @amprt_relu(%{{.*}}, %{{.*}}, %[[R]])
// CHECK: %[[T:.*]] = call @amprt_tensor_new
// CHECK: call @amprt_mul(%{{.*}}, %[[R]], %[[R]], %[[T]])
// CHECK-NOT: amprt_tensor_new
// CHECK: call @amprt_add(%{{.*}}, %[[R]], %[[T]], %[[R]])
// CHECK: return
func.func @kept(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %r = tg.relu %x : tensor<2x3xf32>
  %t = tg.mul %r, %r : tensor<2x3xf32>
  %u = tg.add %r, %t : tensor<2x3xf32>
  return %u, %t : tensor<2x3xf32>, tensor<2x3xf32>
}

// A dying operand of another type (the [3] side of a broadcast) is not
// reused, nor is a comparison's operand (its i1 result has another type).
// CHECK-LABEL: func.func @types(
// CHECK: call @amprt_relu
// CHECK: %[[S:.*]] = call @amprt_tensor_new
// CHECK: call @amprt_sub(%{{.*}}, %{{.*}}, %{{.*}}, %[[S]])
// CHECK: %[[C:.*]] = call @amprt_tensor_new
// CHECK: call @amprt_compare(
// CHECK: return
func.func @types(%x: tensor<3xf32>, %y: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi1>) {
  %r = tg.relu %x : tensor<3xf32>
  %s = tg.sub %y, %r : tensor<2x3xf32>, tensor<3xf32>
  %c = tg.compare "gt", %s, %y : tensor<2x3xf32>
  return %s, %c : tensor<2x3xf32>, tensor<2x3xi1>
}
