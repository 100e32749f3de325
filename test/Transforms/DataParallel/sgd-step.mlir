// An f32 SGD step made data-parallel: a communicator argument, the backward
// seed divided by the number of ranks, one bucket summing both gradients
// where the backward pass computes them ("sum", the default reduction, is
// not printed), and the loss averaged for the host.
//
// RUN: amp-opt %s --tg-autodiff --tg-data-parallel | FileCheck %s
// RUN: amp-opt %s --tg-autodiff --tg-data-parallel --tg-data-parallel | FileCheck %s --check-prefix=TWICE
// RUN: amp-opt %s --tg-autodiff --tg-data-parallel --canonicalize --cse | FileCheck %s --check-prefix=KEPT

// CHECK-LABEL: func.func @train_step
// CHECK-SAME: %[[LR:[^:]*]]: tensor<f32> {tg.role = "lr"}, %[[COMM:[^:]*]]: tensor<i64> {tg.role = "communicator"})
// CHECK: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %[[RANKS:.*]] = tg.all_reduce %[[COMM]], %[[ONE]] : tensor<i64>, tensor<f32>
// CHECK: %[[SHARE:.*]] = tg.reciprocal %[[RANKS]]
// CHECK: %[[LOSS:.*]] = tg.reduce_mean
// CHECK: %[[SEED:.*]] = tg.grad_seed %[[LOSS]]
// CHECK: %[[PART:.*]] = tg.mul %[[SEED]], %[[SHARE]]
// CHECK: %[[DW:.*]] = tg.matmul {{.*}} {transpose_a = true}
// CHECK: %[[SUM:.*]]:2 = tg.all_reduce %[[COMM]], %{{.*}}, %[[DW]] : tensor<i64>, tensor<10xf32>, tensor<784x10xf32>
// CHECK-DAG: tg.sgd_update %{{.*}}, %[[SUM]]#1, %[[LR]]
// CHECK-DAG: tg.sgd_update %{{.*}}, %[[SUM]]#0, %[[LR]]
// CHECK: %[[MEAN:.*]] = tg.all_reduce %[[COMM]], %[[LOSS]] {reduction = "mean"} : tensor<i64>, tensor<f32>
// CHECK: return %[[MEAN]],
// predict has no optimizer: untouched.
// CHECK-LABEL: func.func @predict
// CHECK-NOT: communicator
// CHECK-NOT: tg.all_reduce

// TWICE-COUNT-1: tg.role = "communicator"
// TWICE-COUNT-3: tg.all_reduce
// TWICE-NOT: tg.all_reduce

// Collectives have side effects: canonicalize and cse keep every one.
// KEPT-COUNT-3: tg.all_reduce
// KEPT-NOT: tg.all_reduce

func.func @train_step(
    %w: tensor<784x10xf32> {tg.role = "param", tg.init = "glorot_uniform"},
    %b: tensor<10xf32> {tg.role = "param", tg.init = "zeros"},
    %x: tensor<32x784xf32> {tg.role = "input"},
    %y: tensor<32xi32> {tg.role = "label"},
    %lr: tensor<f32> {tg.role = "lr"})
    -> (tensor<f32> {tg.role = "loss"},
        tensor<784x10xf32> {tg.role = "param"}, tensor<10xf32> {tg.role = "param"}) {
  %h = tg.matmul %x, %w : tensor<32x784xf32>, tensor<784x10xf32>
  %logits = tg.bias_add %h, %b : tensor<32x10xf32>, tensor<10xf32>
  %l = tg.softmax_cross_entropy %logits, %y : tensor<32x10xf32>, tensor<32xi32>
  %loss = tg.reduce_mean %l {dims = array<i64: 0>} : tensor<32xf32>
  %dw, %db = tg.gradients %loss wrt %w, %b : tensor<f32>, tensor<784x10xf32>, tensor<10xf32>
  %w2 = tg.sgd_update %w, %dw, %lr : tensor<784x10xf32>
  %b2 = tg.sgd_update %b, %db, %lr : tensor<10xf32>
  return %loss, %w2, %b2 : tensor<f32>, tensor<784x10xf32>, tensor<10xf32>
}

func.func @predict(%w: tensor<784x10xf32>, %b: tensor<10xf32>,
                   %x: tensor<32x784xf32> {tg.role = "input"})
    -> (tensor<32x10xf32> {tg.role = "logits"}) {
  %h = tg.matmul %x, %w : tensor<32x784xf32>, tensor<784x10xf32>
  %logits = tg.bias_add %h, %b : tensor<32x10xf32>, tensor<10xf32>
  return %logits : tensor<32x10xf32>
}
