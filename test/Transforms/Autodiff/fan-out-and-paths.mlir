// Fan-out gradients are summed; values off the path to the loss get no
// backward ops; one tg.grad_seed roots each expansion.
// RUN: amp-opt %s --tg-autodiff -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @fan_out
// CHECK-COUNT-1: tg.grad_seed
// CHECK: %[[T1:.*]] = tg.tanh_grad
// CHECK: %[[S:.*]] = tg.add %{{.*}}, %[[T1]] : tensor<4xf32>
// CHECK-NOT: tg.gradients
func.func @fan_out(%x: tensor<4xf32>) -> tensor<4xf32> {
  %t = tg.tanh %x : tensor<4xf32>
  %u = tg.add %t, %x : tensor<4xf32>
  %l = tg.reduce_sum %u {dims = array<i64: 0>} : tensor<4xf32>
  %g = tg.gradients %l wrt %x : tensor<f32>, tensor<4xf32>
  return %g : tensor<4xf32>
}

// The exp only feeds an output that is not the loss: it gets no gradient op.
// CHECK-LABEL: func.func @off_path
// CHECK: tg.exp
// CHECK-NOT: tg.mul
// CHECK: tg.relu_grad
func.func @off_path(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %e = tg.exp %x : tensor<4xf32>
  %r = tg.relu %x : tensor<4xf32>
  %l = tg.reduce_sum %r {dims = array<i64: 0>} : tensor<4xf32>
  %g = tg.gradients %l wrt %x : tensor<f32>, tensor<4xf32>
  return %g, %e : tensor<4xf32>, tensor<4xf32>
}

// A wrt value the loss does not depend on gets zeros and a warning.
// CHECK-LABEL: func.func @unused_wrt
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<3xf32>
// CHECK: return %{{.*}}, %[[Z]]
func.func @unused_wrt(%x: tensor<4xf32>, %unused: tensor<3xf32>) -> (tensor<4xf32>, tensor<3xf32>) {
  %l = tg.reduce_sum %x {dims = array<i64: 0>} : tensor<4xf32>
  // expected-warning @+1 {{tg-autodiff: the loss does not depend on wrt operand #1; its gradient is zeros}}
  %g:2 = tg.gradients %l wrt %x, %unused : tensor<f32>, tensor<4xf32>, tensor<3xf32>
  return %g#0, %g#1 : tensor<4xf32>, tensor<3xf32>
}
