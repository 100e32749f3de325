// A graph without an allow op is left exactly as it is.
// RUN: amp-opt %s --amp-auto-mixed-precision | FileCheck %s
// RUN: amp-opt %s > %t.before
// RUN: amp-opt %s --amp-auto-mixed-precision > %t.after
// RUN: diff %t.before %t.after

// CHECK-LABEL: func.func @no_allow
// CHECK-NOT: amp.cast
// CHECK-NOT: f16
func.func @no_allow(%x: tensor<32x32xf32>, %b: tensor<32xf32>) -> tensor<32x32xf32> {
  %0 = tg.relu %x : tensor<32x32xf32>
  %1 = tg.bias_add %0, %b : tensor<32x32xf32>, tensor<32xf32>
  %2 = tg.tanh %1 : tensor<32x32xf32>
  %3 = tg.exp %2 : tensor<32x32xf32>
  return %3 : tensor<32x32xf32>
}
