// Gradients are reduced before tg.clip_by_global_norm, so the norm that
// decides the clipping is the global batch's, the same on every rank.
//
// RUN: amp-opt %s --tg-data-parallel | FileCheck %s

// CHECK-LABEL: func.func @step
// CHECK: %[[R:.*]]:2 = tg.all_reduce %{{.*}}, %{{.*}}, %{{.*}} {reduction = "mean"} : tensor<i64>, tensor<4xf32>, tensor<3xf32>
// CHECK: tg.clip_by_global_norm %[[R]]#0, %[[R]]#1
func.func @step(%w: tensor<4xf32> {tg.role = "param"}, %v: tensor<3xf32> {tg.role = "param"},
                %gw: tensor<4xf32> {tg.role = "input"}, %gv: tensor<3xf32> {tg.role = "label"},
                %lr: tensor<f32> {tg.role = "lr"})
    -> (tensor<4xf32> {tg.role = "param"}, tensor<3xf32> {tg.role = "param"}) {
  %cw, %cv = tg.clip_by_global_norm %gw, %gv {max_norm = 1.0 : f64} : tensor<4xf32>, tensor<3xf32>
  %nw = tg.sgd_update %w, %cw, %lr : tensor<4xf32>
  %nv = tg.sgd_update %v, %cv, %lr : tensor<3xf32>
  return %nw, %nv : tensor<4xf32>, tensor<3xf32>
}
