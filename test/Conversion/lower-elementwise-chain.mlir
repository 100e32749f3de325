// Elementwise ops whose intermediates each have one reader, inside the
// tree, run as one amprt_elementwise_chain call at the last op's place:
// the intermediates are never made. A value read twice, a broadcast
// operand, ops past 16 or inputs past 8, and every op under
// fuse-elementwise-chains=0 are lowered one by one.
// RUN: amp-opt %s --amp-lower-to-runtime | FileCheck %s
// RUN: amp-opt %s --amp-lower-to-runtime=fuse-elementwise-chains=0 \
// RUN:   | FileCheck %s --check-prefix=APART

// torch-mlir's decomposed gelu: four inputs (x and three constants), five
// steps, one call.
// CHECK-LABEL: func.func @decomposed_gelu(
// CHECK: %[[Y:.*]] = call @amprt_tensor_new
// CHECK: %[[INPUTS:.*]] = arith.constant 4 : i32
// CHECK: %[[STEPS:.*]] = arith.constant 5 : i32
// CHECK: call @amprt_elementwise_chain(%arg0, %{{.*}}, %[[INPUTS]], %{{.*}}, %{{.*}}, %[[STEPS]], %[[Y]])
// CHECK-NOT: call @amprt_mul(
// CHECK-NOT: call @amprt_erf(
// CHECK-NOT: call @amprt_add(
// CHECK: return
// APART-LABEL: func.func @decomposed_gelu(
// APART-COUNT-3: call @amprt_mul(
// APART-NOT: amprt_elementwise_chain
func.func @decomposed_gelu(%x: tensor<4x8xf16>) -> tensor<4x8xf16> {
  %c = arith.constant dense<0.70710678> : tensor<4x8xf16>
  %one = arith.constant dense<1.0> : tensor<4x8xf16>
  %half = arith.constant dense<0.5> : tensor<4x8xf16>
  %s = tg.mul %x, %c : tensor<4x8xf16>
  %e = tg.erf %s : tensor<4x8xf16>
  %p = tg.add %e, %one : tensor<4x8xf16>
  %h = tg.mul %x, %half : tensor<4x8xf16>
  %y = tg.mul %h, %p : tensor<4x8xf16>
  return %y : tensor<4x8xf16>
}

// The chain's result takes the storage of an input that dies at it (the
// product's), and leaky relu's slope goes in the alphas array.
// CHECK-LABEL: func.func @over_a_dying_input(
// CHECK: %[[P:.*]] = call @amprt_tensor_new
// CHECK: call @amprt_matmul(%arg0, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[P]])
// CHECK: arith.constant 2.500000e-01 : f64
// CHECK: call @amprt_elementwise_chain(%arg0, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[P]])
// CHECK-NOT: call @amprt_tensor_release(%[[P]])
// CHECK: return
func.func @over_a_dying_input(%x: tensor<4x8xf32>, %w: tensor<8x3xf32>,
                              %b: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %p = tg.matmul %x, %w : tensor<4x8xf32>, tensor<8x3xf32>
  %q = tg.mul %p, %b : tensor<4x3xf32>
  %r = tg.exp %q : tensor<4x3xf32>
  %s = tg.leaky_relu %r {alpha = 2.500000e-01 : f64} : tensor<4x3xf32>
  return %s : tensor<4x3xf32>
}

// Apart: tanh's result is also returned (two readers), so the mul is alone;
// the add broadcasts a row.
// CHECK-LABEL: func.func @apart(
// CHECK: call @amprt_tanh(
// CHECK: call @amprt_mul(
// CHECK: call @amprt_add(
// CHECK-NOT: amprt_elementwise_chain
// CHECK: return
func.func @apart(%x: tensor<4x3xf32>, %y: tensor<4x3xf32>, %row: tensor<3xf32>)
    -> (tensor<4x3xf32>, tensor<4x3xf32>) {
  %t = tg.tanh %x : tensor<4x3xf32>
  %u = tg.mul %t, %y : tensor<4x3xf32>
  %v = tg.add %u, %row : tensor<4x3xf32>, tensor<3xf32>
  return %v, %t : tensor<4x3xf32>, tensor<4x3xf32>
}

// Eighteen ops in a row: the last sixteen are one call, the first two
// another.
// CHECK-LABEL: func.func @longer_than_a_chain(
// CHECK: %[[TWO:.*]] = arith.constant 2 : i32
// CHECK: call @amprt_elementwise_chain(%arg0, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[TWO]], %{{.*}})
// CHECK: %[[SIXTEEN:.*]] = arith.constant 16 : i32
// CHECK: call @amprt_elementwise_chain(%arg0, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[SIXTEEN]], %{{.*}})
// CHECK-NOT: call @amprt_neg(
// CHECK: return
func.func @longer_than_a_chain(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = tg.neg %x : tensor<16xf32>
  %1 = tg.neg %0 : tensor<16xf32>
  %2 = tg.tanh %1 : tensor<16xf32>
  %3 = tg.tanh %2 : tensor<16xf32>
  %4 = tg.tanh %3 : tensor<16xf32>
  %5 = tg.tanh %4 : tensor<16xf32>
  %6 = tg.tanh %5 : tensor<16xf32>
  %7 = tg.tanh %6 : tensor<16xf32>
  %8 = tg.tanh %7 : tensor<16xf32>
  %9 = tg.tanh %8 : tensor<16xf32>
  %10 = tg.tanh %9 : tensor<16xf32>
  %11 = tg.tanh %10 : tensor<16xf32>
  %12 = tg.tanh %11 : tensor<16xf32>
  %13 = tg.tanh %12 : tensor<16xf32>
  %14 = tg.tanh %13 : tensor<16xf32>
  %15 = tg.tanh %14 : tensor<16xf32>
  %16 = tg.tanh %15 : tensor<16xf32>
  %17 = tg.tanh %16 : tensor<16xf32>
  return %17 : tensor<16xf32>
}

// Nine inputs are more than a chain takes: the tree from the last add is
// not fused, the one from the add before it (eight inputs) is.
// CHECK-LABEL: func.func @more_inputs_than_a_chain(
// CHECK: %[[EIGHT:.*]] = arith.constant 8 : i32
// CHECK: %[[SEVEN:.*]] = arith.constant 7 : i32
// CHECK: call @amprt_elementwise_chain(%arg0, %{{.*}}, %[[EIGHT]], %{{.*}}, %{{.*}}, %[[SEVEN]], %{{.*}})
// CHECK: call @amprt_add(
// CHECK-NOT: call @amprt_add(
// CHECK: return
func.func @more_inputs_than_a_chain(
    %a0: tensor<8xf32>, %a1: tensor<8xf32>, %a2: tensor<8xf32>,
    %a3: tensor<8xf32>, %a4: tensor<8xf32>, %a5: tensor<8xf32>,
    %a6: tensor<8xf32>, %a7: tensor<8xf32>, %a8: tensor<8xf32>)
    -> tensor<8xf32> {
  %0 = tg.add %a0, %a1 : tensor<8xf32>
  %1 = tg.add %0, %a2 : tensor<8xf32>
  %2 = tg.add %1, %a3 : tensor<8xf32>
  %3 = tg.add %2, %a4 : tensor<8xf32>
  %4 = tg.add %3, %a5 : tensor<8xf32>
  %5 = tg.add %4, %a6 : tensor<8xf32>
  %6 = tg.add %5, %a7 : tensor<8xf32>
  %7 = tg.add %6, %a8 : tensor<8xf32>
  return %7 : tensor<8xf32>
}
