// Gradient rules of the unary ops: each function differentiates
// reduce_sum(op(x)) with respect to x.
// RUN: amp-opt %s --tg-autodiff | FileCheck %s

// relu's gradient reads the output (positive exactly where the input is),
// so the input can die at the relu.
// CHECK-LABEL: func.func @relu
// CHECK: %[[Y:.*]] = tg.relu %{{.*}} :
// CHECK: %[[DY:.*]] = tg.broadcast_to
// CHECK: %[[DX:.*]] = tg.relu_grad %[[DY]], %[[Y]] : tensor<4x8xf32>
// CHECK: return %[[DX]]
func.func @relu(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = tg.relu %x : tensor<4x8xf32>
  %l = tg.reduce_sum %y {dims = array<i64: 0, 1>} : tensor<4x8xf32>
  %g = tg.gradients %l wrt %x : tensor<f32>, tensor<4x8xf32>
  return %g : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @tanh_sigmoid_gelu_leaky
// CHECK-DAG: tg.tanh_grad
// CHECK-DAG: tg.sigmoid_grad
// CHECK-DAG: tg.gelu_grad
// CHECK-DAG: tg.leaky_relu_grad {{.*}} {alpha = 2.000000e-01 : f64}
func.func @tanh_sigmoid_gelu_leaky(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = tg.tanh %x : tensor<4x8xf32>
  %b = tg.sigmoid %a : tensor<4x8xf32>
  %c = tg.gelu %b : tensor<4x8xf32>
  %d = tg.leaky_relu %c {alpha = 0.2 : f64} : tensor<4x8xf32>
  %l = tg.reduce_sum %d {dims = array<i64: 0, 1>} : tensor<4x8xf32>
  %g = tg.gradients %l wrt %x : tensor<f32>, tensor<4x8xf32>
  return %g : tensor<4x8xf32>
}

// exp: dy * y; log: dy / x.
// CHECK-LABEL: func.func @exp_log
// CHECK: %[[E:.*]] = tg.exp %[[X:[^ ]*]] :
// CHECK: %[[L:.*]] = tg.log %[[E]] :
// CHECK: %[[D1:.*]] = tg.div %{{.*}}, %[[E]] :
// CHECK: tg.mul %[[D1]], %[[E]] :
func.func @exp_log(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tg.exp %x : tensor<4x8xf32>
  %l = tg.log %e : tensor<4x8xf32>
  %s = tg.reduce_sum %l {dims = array<i64: 0, 1>} : tensor<4x8xf32>
  %g = tg.gradients %s wrt %x : tensor<f32>, tensor<4x8xf32>
  return %g : tensor<4x8xf32>
}

// sqrt: dy * 0.5 / y; rsqrt: dy * -0.5 * y^3; square: dy * 2x;
// reciprocal: -dy * y^2; neg: -dy; erf: dy * 2/sqrt(pi) * exp(-x^2).
// CHECK-LABEL: func.func @roots_and_powers
// CHECK-DAG: arith.constant dense<5.000000e-01> : tensor<f32>
// CHECK-DAG: arith.constant dense<-5.000000e-01> : tensor<f32>
// CHECK-DAG: arith.constant dense<2.000000e+00> : tensor<f32>
// CHECK-DAG: arith.constant dense<1.12837{{[0-9]*}}> : tensor<f32>
// CHECK-DAG: tg.neg
func.func @roots_and_powers(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = tg.sqrt %x : tensor<4x8xf32>
  %b = tg.rsqrt %a : tensor<4x8xf32>
  %c = tg.square %b : tensor<4x8xf32>
  %d = tg.reciprocal %c : tensor<4x8xf32>
  %e = tg.neg %d : tensor<4x8xf32>
  %f = tg.erf %e : tensor<4x8xf32>
  %l = tg.reduce_sum %f {dims = array<i64: 0, 1>} : tensor<4x8xf32>
  %g = tg.gradients %l wrt %x : tensor<f32>, tensor<4x8xf32>
  return %g : tensor<4x8xf32>
}

// abs: sign(x) * dy with 0 at 0.
// CHECK-LABEL: func.func @abs
// CHECK: tg.compare "lt"
// CHECK: tg.compare "eq"
// CHECK: tg.select
func.func @abs(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = tg.abs %x : tensor<4xf32>
  %l = tg.reduce_sum %a {dims = array<i64: 0>} : tensor<4xf32>
  %g = tg.gradients %l wrt %x : tensor<f32>, tensor<4xf32>
  return %g : tensor<4xf32>
}

// The gradient of a cast is a cast back.
// CHECK-LABEL: func.func @cast
// CHECK: %[[D:.*]] = tg.broadcast_to {{.*}} -> tensor<4xf16>
// CHECK: %[[B:.*]] = amp.cast %[[D]] : tensor<4xf16> to tensor<4xf32>
// CHECK: return %[[B]]
func.func @cast(%x: tensor<4xf32>) -> tensor<4xf32> {
  %h = amp.cast %x : tensor<4xf32> to tensor<4xf16>
  %l = tg.reduce_sum %h {dims = array<i64: 0>} : tensor<4xf16>
  %g = tg.gradients %l wrt %x : tensor<f16>, tensor<4xf32>
  return %g : tensor<4xf32>
}

// silu: dx = dy * (s + y (1 - s)) with s = sigmoid(x), from tg ops.
// CHECK-LABEL: func.func @silu
// CHECK: %[[Y:.*]] = tg.silu %[[X:[^ ]*]] : tensor<4x8xf32>
// CHECK: %[[S:.*]] = tg.sigmoid %[[X]] : tensor<4x8xf32>
// CHECK: %[[OMS:.*]] = tg.sub %{{.*}}, %[[S]] : tensor<f32>, tensor<4x8xf32>
// CHECK: %[[T:.*]] = tg.mul %[[Y]], %[[OMS]]
// CHECK: %[[D:.*]] = tg.add %[[S]], %[[T]]
// CHECK: %[[DX:.*]] = tg.mul %{{.*}}, %[[D]]
// CHECK: return %[[DX]]
func.func @silu(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = tg.silu %x : tensor<4x8xf32>
  %l = tg.reduce_sum %y {dims = array<i64: 0, 1>} : tensor<4x8xf32>
  %g = tg.gradients %l wrt %x : tensor<f32>, tensor<4x8xf32>
  return %g : tensor<4x8xf32>
}
