// annotate=true writes amp.color: allow for converted ops, deny for the
// deny set, and the list for ops that simply stay f32.
// RUN: amp-opt %s --amp-auto-mixed-precision=annotate=true | FileCheck %s

// CHECK-LABEL: func.func @colors
// CHECK: tg.exp {{.*}} {amp.color = "deny"}
// CHECK: tg.matmul {{.*}} {amp.color = "allow"}
// CHECK: tg.relu {{.*}} {amp.color = "allow"}
// CHECK: tg.tanh {{.*}} {amp.color = "infer"}
func.func @colors(%x: tensor<32x32xf32>) -> (tensor<32x32xf32>, tensor<32x32xf32>) {
  %e = tg.exp %x : tensor<32x32xf32>
  %m = tg.matmul %x, %x : tensor<32x32xf32>
  %r = tg.relu %m : tensor<32x32xf32>
  %t = tg.tanh %r : tensor<32x32xf32>
  return %e, %t : tensor<32x32xf32>, tensor<32x32xf32>
}
