// gradients=true returns the sum of squares of the gradient each optimizer
// op receives, named by the param's argument number; with ops=false no op
// is shadowed. In the backward pass, probes say "backward".
// RUN: amp-opt %s --tg-autodiff --amp-validation-probes="ops=false gradients=true" | FileCheck %s
// RUN: amp-opt %s --tg-autodiff --amp-validation-probes | FileCheck %s --check-prefix=OPS

// CHECK-LABEL: func.func @train_step
// CHECK-SAME: tensor<f32> {amp.probe = {id = 0 : i64, index = 0 : i64, kind = "gradient", loc = {{.*}}, op = "tg.sgd_update"}, tg.role = "output"}
// CHECK-NOT: amp.numeric_error
// CHECK: %[[SQ:.*]] = tg.square %[[G:.*]] : tensor<8x4xf32>
// CHECK: %[[SUM:.*]] = tg.reduce_sum %[[SQ]] {dims = array<i64: 0, 1>} : tensor<8x4xf32>
// CHECK: tg.sgd_update %arg0, %[[G]], %arg2
// CHECK: return {{.*}}, %[[SUM]] :
// OPS: amp.probe = {backward = true, class = "allow", id = {{[0-9]+}} : i64, index = 0 : i64, kind = "result", loc = {{.*}}, op = "tg.matmul"
func.func @train_step(
    %w: tensor<8x4xf32> {tg.role = "param"},
    %x: tensor<2x8xf32> {tg.role = "input"},
    %lr: tensor<f32> {tg.role = "lr"})
    -> (tensor<f32> {tg.role = "loss"}, tensor<8x4xf32> {tg.role = "param"}) {
  %h = tg.matmul %x, %w : tensor<2x8xf32>, tensor<8x4xf32>
  %loss = tg.reduce_sum %h {dims = array<i64: 0, 1>} : tensor<2x4xf32>
  %g = tg.gradients %loss wrt %w : tensor<f32>, tensor<8x4xf32>
  %wn = tg.sgd_update %w, %g, %lr : tensor<8x4xf32>
  return %loss, %wn : tensor<f32>, tensor<8x4xf32>
}
