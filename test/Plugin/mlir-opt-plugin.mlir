// Stock mlir-opt runs amp's passes through the plugin (plugin passes are
// reached through --pass-pipeline).
// A sanitized plugin cannot load into the packaged, unsanitized mlir-opt.
// UNSUPPORTED: sanitizers
// RUN: mlir-opt --load-dialect-plugin=%amp_lib/AMPPlugin.so --load-pass-plugin=%amp_lib/AMPPlugin.so %s --pass-pipeline='builtin.module(amp-pipeline)' | FileCheck %s

// CHECK-LABEL: func.func @step
// CHECK: tg.matmul {{.*}} : tensor<8x8xf16>
// CHECK: amp.update_scale
func.func @step(%w: tensor<8x8xf32> {tg.role = "param"}, %x: tensor<8x8xf32> {tg.role = "input"},
                %lr: tensor<f32> {tg.role = "lr"}) -> (tensor<f32> {tg.role = "loss"}, tensor<8x8xf32> {tg.role = "param"}) {
  %y = tg.matmul %x, %w : tensor<8x8xf32>
  %l = tg.reduce_mean %y {dims = array<i64: 0, 1>} : tensor<8x8xf32>
  %g = tg.gradients %l wrt %w : tensor<f32>, tensor<8x8xf32>
  %w2 = tg.sgd_update %w, %g, %lr : tensor<8x8xf32>
  return %l, %w2 : tensor<f32>, tensor<8x8xf32>
}
