// A weight used by several matmuls is cast once, right after its producer
// (the function entry): the f32 master weight stays the argument.
// RUN: amp-opt %s --amp-auto-mixed-precision | FileCheck %s

// CHECK-LABEL: func.func @shared_weight
// CHECK-SAME: (%[[W:.*]]: tensor<32x32xf32> {tg.role = "param"}
// CHECK-COUNT-1: amp.cast %[[W]] : tensor<32x32xf32> to tensor<32x32xf16>
// CHECK-NOT: amp.cast %[[W]]
// CHECK: tg.sgd_update %[[W]], {{.*}} : tensor<32x32xf32>
func.func @shared_weight(%w: tensor<32x32xf32> {tg.role = "param"},
                         %x: tensor<32x32xf32> {tg.role = "input"},
                         %lr: tensor<f32> {tg.role = "lr"})
    -> (tensor<32x32xf32> {tg.role = "param"}) {
  %0 = tg.matmul %x, %w : tensor<32x32xf32>
  %1 = tg.matmul %0, %w : tensor<32x32xf32>
  %2 = tg.matmul %1, %w {transpose_b = true} : tensor<32x32xf32>
  %3 = tg.matmul %w, %2 : tensor<32x32xf32>
  %4 = tg.sgd_update %w, %3, %lr : tensor<32x32xf32>
  return %4 : tensor<32x32xf32>
}
