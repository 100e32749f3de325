// Deny spreads forward from exp through clear and infer ops that lie
// upstream of an infer op; the spread stops at the last infer op, and the
// matmul gets its f16 input through a cast right after it.
// RUN: amp-opt %s --amp-auto-mixed-precision | FileCheck %s

// CHECK-LABEL: func.func @deny_spread
// CHECK: %[[E:.*]] = tg.exp %{{.*}} : tensor<32x32xf32>
// CHECK: %[[N:.*]] = tg.neg %[[E]] : tensor<32x32xf32>
// CHECK: %[[T:.*]] = tg.tanh %[[N]] : tensor<32x32xf32>
// CHECK: %[[R:.*]] = tg.reshape %[[T]] : tensor<32x32xf32> -> tensor<1024xf32>
// CHECK: %[[S:.*]] = tg.sigmoid %[[R]] : tensor<1024xf32>
// CHECK: %[[C:.*]] = amp.cast %[[S]] : tensor<1024xf32> to tensor<1024xf16>
// CHECK: %[[B:.*]] = tg.reshape %[[C]] : tensor<1024xf16> -> tensor<32x32xf16>
// CHECK: tg.matmul %[[B]], %{{.*}} : tensor<32x32xf16>
func.func @deny_spread(%x: tensor<32x32xf32>, %w: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %e = tg.exp %x : tensor<32x32xf32>
  %n = tg.neg %e : tensor<32x32xf32>
  %t = tg.tanh %n : tensor<32x32xf32>
  %r = tg.reshape %t : tensor<32x32xf32> -> tensor<1024xf32>
  %s = tg.sigmoid %r : tensor<1024xf32>
  %b = tg.reshape %s : tensor<1024xf32> -> tensor<32x32xf32>
  %m = tg.matmul %b, %w : tensor<32x32xf32>
  %o = tg.reduce_sum %m {dims = array<i64: 0>, keepdims = true} : tensor<32x32xf32>
  %y = tg.sub %m, %o : tensor<32x32xf32>, tensor<1x32xf32>
  return %y : tensor<32x32xf32>
}
