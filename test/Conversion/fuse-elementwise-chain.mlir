// --amp-fuse-for-runtime runs trees of chain steps whose intermediates
// each have one reader, in the tree, as one amprt.elementwise_chain at the
// last one's place. A chain is grown from its root back through operands,
// up to 16 steps and 8 inputs; an op the chain above it cannot take in
// roots a chain of its own. fuse-elementwise-chains=0 makes none.
// RUN: amp-opt %s --amp-fuse-for-runtime | FileCheck %s
// RUN: amp-opt %s --amp-fuse-for-runtime=fuse-elementwise-chains=0 \
// RUN:   | FileCheck %s --check-prefix=APART

// torch-mlir's decomposed gelu: five steps over x and three constants.
// CHECK-LABEL: func.func @decomposed_gelu(
// CHECK: %[[Y:.*]] = amprt.elementwise_chain(%arg0, %{{.*}}, %{{.*}}, %{{.*}}) : (tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>) -> tensor<4x8xf16> {
// CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<4x8xf16>, %[[C:.*]]: tensor<4x8xf16>, %[[ONE:.*]]: tensor<4x8xf16>, %[[HALF:.*]]: tensor<4x8xf16>):
// CHECK-NEXT: %[[S:.*]] = tg.mul %[[X]], %[[C]]
// CHECK-NEXT: %[[E:.*]] = tg.erf %[[S]]
// CHECK-NEXT: %[[P:.*]] = tg.add %[[E]], %[[ONE]]
// CHECK-NEXT: %[[H:.*]] = tg.mul %[[X]], %[[HALF]]
// CHECK-NEXT: %[[R:.*]] = tg.mul %[[H]], %[[P]]
// CHECK-NEXT: amprt.yield %[[R]]
// CHECK: return %[[Y]]
// APART-LABEL: func.func @decomposed_gelu(
// APART-NOT: amprt.elementwise_chain
// APART: return
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

// Eighteen steps in a line: the last sixteen are one chain, the first two
// another (its root is the op the longer chain could not take in).
// CHECK-LABEL: func.func @past_sixteen_steps(
// CHECK: %[[FIRST:.*]] = amprt.elementwise_chain(%arg0)
// CHECK-COUNT-2: tg.
// CHECK-NEXT: amprt.yield
// CHECK: amprt.elementwise_chain(%[[FIRST]])
// CHECK-COUNT-16: tg.
// CHECK-NEXT: amprt.yield
func.func @past_sixteen_steps(%x: tensor<8xf32>) -> tensor<8xf32> {
  %v0 = tg.neg %x : tensor<8xf32>
  %v1 = tg.abs %v0 : tensor<8xf32>
  %v2 = tg.exp %v1 : tensor<8xf32>
  %v3 = tg.tanh %v2 : tensor<8xf32>
  %v4 = tg.neg %v3 : tensor<8xf32>
  %v5 = tg.abs %v4 : tensor<8xf32>
  %v6 = tg.exp %v5 : tensor<8xf32>
  %v7 = tg.tanh %v6 : tensor<8xf32>
  %v8 = tg.neg %v7 : tensor<8xf32>
  %v9 = tg.abs %v8 : tensor<8xf32>
  %v10 = tg.exp %v9 : tensor<8xf32>
  %v11 = tg.tanh %v10 : tensor<8xf32>
  %v12 = tg.neg %v11 : tensor<8xf32>
  %v13 = tg.abs %v12 : tensor<8xf32>
  %v14 = tg.exp %v13 : tensor<8xf32>
  %v15 = tg.tanh %v14 : tensor<8xf32>
  %v16 = tg.neg %v15 : tensor<8xf32>
  %v17 = tg.abs %v16 : tensor<8xf32>
  return %v17 : tensor<8xf32>
}

// Nine inputs are one too many for the sum's root; the eight adds below it
// (eight inputs) are a chain, and the root adds to its result.
// CHECK-LABEL: func.func @past_eight_inputs(
// CHECK: %[[PART:.*]] = amprt.elementwise_chain(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6, %arg7)
// CHECK-COUNT-7: tg.add
// CHECK-NEXT: amprt.yield
// CHECK: tg.add %[[PART]], %arg8
func.func @past_eight_inputs(%a0: tensor<8xf32>, %a1: tensor<8xf32>, %a2: tensor<8xf32>, %a3: tensor<8xf32>, %a4: tensor<8xf32>, %a5: tensor<8xf32>, %a6: tensor<8xf32>, %a7: tensor<8xf32>, %a8: tensor<8xf32>) -> tensor<8xf32> {
  %s1 = tg.add %a0, %a1 : tensor<8xf32>
  %s2 = tg.add %s1, %a2 : tensor<8xf32>
  %s3 = tg.add %s2, %a3 : tensor<8xf32>
  %s4 = tg.add %s3, %a4 : tensor<8xf32>
  %s5 = tg.add %s4, %a5 : tensor<8xf32>
  %s6 = tg.add %s5, %a6 : tensor<8xf32>
  %s7 = tg.add %s6, %a7 : tensor<8xf32>
  %s8 = tg.add %s7, %a8 : tensor<8xf32>
  return %s8 : tensor<8xf32>
}

// Two sums (five and four inputs) added: the root's tree reads nine
// inputs, so it is no chain, and each sum below it is one; the root stays.
// Which chains form is decided as on the unfused block, so the sum made
// first does not let the root take in the other.
// CHECK-LABEL: func.func @two_trees_past_eight_inputs(
// CHECK: %[[Y:.*]] = amprt.elementwise_chain(%arg0, %arg1, %arg2, %arg3, %arg4)
// CHECK: %[[W:.*]] = amprt.elementwise_chain(%arg5, %arg6, %arg7, %arg8)
// CHECK: tg.add %[[Y]], %[[W]] : tensor<8xf32>
func.func @two_trees_past_eight_inputs(%a0: tensor<8xf32>, %a1: tensor<8xf32>, %a2: tensor<8xf32>, %a3: tensor<8xf32>, %a4: tensor<8xf32>, %a5: tensor<8xf32>, %a6: tensor<8xf32>, %a7: tensor<8xf32>, %a8: tensor<8xf32>) -> tensor<8xf32> {
  %y1 = tg.add %a0, %a1 : tensor<8xf32>
  %y2 = tg.add %y1, %a2 : tensor<8xf32>
  %y3 = tg.add %y2, %a3 : tensor<8xf32>
  %y4 = tg.add %y3, %a4 : tensor<8xf32>
  %w1 = tg.add %a5, %a6 : tensor<8xf32>
  %w2 = tg.add %w1, %a7 : tensor<8xf32>
  %w3 = tg.add %w2, %a8 : tensor<8xf32>
  %z = tg.add %y4, %w3 : tensor<8xf32>
  return %z : tensor<8xf32>
}

// A value read twice ends a chain; a broadcast operand is an input of no
// step (tg.mul by a scalar is no chain step); a lone step stays.
// CHECK-LABEL: func.func @kept(
// CHECK: %[[T:.*]] = amprt.elementwise_chain(%arg0)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: tg.exp
// CHECK-NEXT: tg.tanh
// CHECK-NEXT: amprt.yield
// CHECK: tg.add %[[T]], %[[T]]
// CHECK: tg.mul %{{.*}}, %arg1 : tensor<8xf32>, tensor<f32>
// CHECK-NOT: amprt.elementwise_chain
func.func @kept(%x: tensor<8xf32>, %s: tensor<f32>) -> tensor<8xf32> {
  %e = tg.exp %x : tensor<8xf32>
  %t = tg.tanh %e : tensor<8xf32>
  %d = tg.add %t, %t : tensor<8xf32>
  %m = tg.mul %d, %s : tensor<8xf32>, tensor<f32>
  return %m : tensor<8xf32>
}
