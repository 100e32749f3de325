// FP8 delayed scaling under data parallelism: the amax that each history
// records is the largest over the ranks, in one "max" all-reduce after the
// last amax of the step (weights, activations and gradients alike), so every
// rank keeps the history one process with the global batch would keep.
// Current scaling scales each rank's own tensor and adds no collective;
// reduce-amax=false keeps each rank's amax; an amp.record_amax in a nested
// region is left as it is, with a warning.
//
// RUN: amp-opt %S/Inputs/mlp-sgd.mlir --amp-pipeline="precision=fp8 data-parallel=true amax-history-len=16" | FileCheck %s
// RUN: amp-opt %S/Inputs/mlp-sgd.mlir --amp-pipeline="precision=fp8 data-parallel=true reduce-amax=false" | FileCheck %s --check-prefix=PER-RANK
// RUN: amp-opt %S/Inputs/mlp-sgd.mlir --amp-pipeline="precision=fp8 fp8-scaling=current data-parallel=true" | FileCheck %s --check-prefix=PER-RANK
// RUN: amp-opt %s --tg-data-parallel 2>&1 | FileCheck %s --check-prefix=NESTED

// CHECK-LABEL: func.func @train_step
// CHECK-SAME: %[[COMM:[^:]*]]: tensor<i64> {tg.role = "communicator"})
// CHECK: %[[A0:.*]] = amp.amax
// CHECK: %[[A1:.*]] = amp.amax
// CHECK: %[[A2:.*]] = amp.amax
// CHECK: %[[A3:.*]] = amp.amax
// CHECK: %[[A4:.*]] = amp.amax
// CHECK: %[[A5:.*]] = amp.amax
// CHECK-NOT: amp.amax
// CHECK: %[[MAX:.*]]:6 = tg.all_reduce %[[COMM]], %[[A0]], %[[A1]], %[[A2]], %[[A3]], %[[A4]], %[[A5]] {reduction = "max"} : tensor<i64>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>
// CHECK-DAG: amp.record_amax %{{.*}}, %[[MAX]]#0 : tensor<16xf32>
// CHECK-DAG: amp.record_amax %{{.*}}, %[[MAX]]#1 : tensor<16xf32>
// CHECK-DAG: amp.record_amax %{{.*}}, %[[MAX]]#2 : tensor<16xf32>
// CHECK-DAG: amp.record_amax %{{.*}}, %[[MAX]]#3 : tensor<16xf32>
// CHECK-DAG: amp.record_amax %{{.*}}, %[[MAX]]#4 : tensor<16xf32>
// CHECK-DAG: amp.record_amax %{{.*}}, %[[MAX]]#5 : tensor<16xf32>
// CHECK: return

// PER-RANK-LABEL: func.func @train_step
// PER-RANK-NOT: reduction = "max"
// PER-RANK: return

// NESTED: warning: tg-data-parallel: amp.record_amax inside a nested region keeps this rank's amax
// NESTED: %[[AMAX:.*]] = tg.all_reduce %{{.*}}, %{{.*}} {reduction = "max"}
// NESTED: amp.record_amax %arg2, %[[AMAX]]
// NESTED: scf.if
// NESTED-NEXT: amp.record_amax %arg3, %{{.*}} : tensor<4xf32>

func.func @step(%w: tensor<4xf32> {tg.role = "param"}, %g: tensor<4xf32>,
                %h: tensor<4xf32> {tg.role = "amax_history"},
                %h2: tensor<4xf32> {tg.role = "amax_history"},
                %lr: tensor<f32> {tg.role = "lr"}, %c: i1)
    -> (tensor<4xf32> {tg.role = "param"}, tensor<4xf32>, tensor<4xf32>) {
  %a = amp.amax %w : tensor<4xf32>
  %n = tg.sgd_update %w, %g, %lr : tensor<4xf32>
  %nh = amp.record_amax %h, %a : tensor<4xf32>
  %nh2 = scf.if %c -> tensor<4xf32> {
    %r = amp.record_amax %h2, %a : tensor<4xf32>
    scf.yield %r : tensor<4xf32>
  } else {
    scf.yield %h2 : tensor<4xf32>
  }
  return %n, %nh, %nh2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
