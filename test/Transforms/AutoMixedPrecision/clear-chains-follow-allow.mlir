// Two chains of clear ops feed one matmul through a shared variadic op
// (concat): the chains, the concat and the matmul all follow the matmul
// into f16, with one cast per chain input.
// RUN: amp-opt %s --amp-auto-mixed-precision | FileCheck %s

// CHECK-LABEL: func.func @two_chains
// CHECK-SAME: (%[[A:.*]]: tensor<32x16xf32>, %[[B:.*]]: tensor<32x16xf32>, %[[W:.*]]: tensor<32x32xf32>)
// CHECK-DAG: %[[CA:.*]] = amp.cast %[[A]] : tensor<32x16xf32> to tensor<32x16xf16>
// CHECK-DAG: %[[CB:.*]] = amp.cast %[[B]] : tensor<32x16xf32> to tensor<32x16xf16>
// CHECK-DAG: %[[CW:.*]] = amp.cast %[[W]] : tensor<32x32xf32> to tensor<32x32xf16>
// CHECK: %[[A1:.*]] = tg.abs %[[CA]] : tensor<32x16xf16>
// CHECK: %[[A2:.*]] = tg.relu %[[A1]] : tensor<32x16xf16>
// CHECK: %[[B1:.*]] = tg.neg %[[CB]] : tensor<32x16xf16>
// CHECK: %[[B2:.*]] = tg.transpose %[[B1]] {perm = array<i64: 0, 1>} : tensor<32x16xf16>
// CHECK: %[[CAT:.*]] = tg.concat %[[A2]], %[[B2]] {axis = 1 : i64} : tensor<32x16xf16>, tensor<32x16xf16>
// CHECK: %[[M:.*]] = tg.matmul %[[CAT]], %[[CW]] : tensor<32x32xf16>
// CHECK: %[[OUT:.*]] = amp.cast %[[M]] : tensor<32x32xf16> to tensor<32x32xf32>
// CHECK: return %[[OUT]]
// CHECK-NOT: amp.cast
func.func @two_chains(%a: tensor<32x16xf32>, %b: tensor<32x16xf32>, %w: tensor<32x32xf32>)
    -> (tensor<32x32xf32> {tg.role = "output"}) {
  %a1 = tg.abs %a : tensor<32x16xf32>
  %a2 = tg.relu %a1 : tensor<32x16xf32>
  %b1 = tg.neg %b : tensor<32x16xf32>
  %b2 = tg.transpose %b1 {perm = array<i64: 0, 1>} : tensor<32x16xf32>
  %cat = tg.concat %a2, %b2 {axis = 1 : i64} : tensor<32x16xf32>, tensor<32x16xf32>
  %m = tg.matmul %cat, %w : tensor<32x32xf32>
  return %m : tensor<32x32xf32>
}
