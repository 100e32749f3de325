// A graph that already computes in f16 is left as it is: colours spread only
// through ops whose float values are f32.
// RUN: amp-opt %s > %t.before
// RUN: amp-opt %s --amp-auto-mixed-precision > %t.after
// RUN: diff %t.before %t.after
// RUN: amp-opt %s --amp-auto-mixed-precision | FileCheck %s

// CHECK-LABEL: func.func @already_f16
// CHECK: tg.matmul {{.*}} : tensor<32x32xf16>
// CHECK: tg.exp {{.*}} : tensor<32x32xf16>
// CHECK-COUNT-1: amp.cast
// CHECK-NOT: amp.cast
func.func @already_f16(%x: tensor<32x32xf16>) -> tensor<32x32xf32> {
  %0 = tg.matmul %x, %x : tensor<32x32xf16>
  %1 = tg.relu %0 : tensor<32x32xf16>
  %2 = tg.exp %1 : tensor<32x32xf16>
  %3 = amp.cast %2 : tensor<32x32xf16> to tensor<32x32xf32>
  %4 = tg.reduce_sum %3 {dims = array<i64: 1>, keepdims = true} : tensor<32x32xf32>
  %5 = tg.sub %3, %4 : tensor<32x32xf32>, tensor<32x1xf32>
  return %5 : tensor<32x32xf32>
}
