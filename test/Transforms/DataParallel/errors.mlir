// Bad options and steps the pass cannot make data-parallel: a diagnostic,
// never invalid IR.
//
// RUN: amp-opt %s --split-input-file --verify-diagnostics --tg-data-parallel
// RUN: not amp-opt %S/Inputs/mlp-sgd.mlir --tg-autodiff --tg-data-parallel=grad-comm=f8 2>&1 | FileCheck %s --check-prefix=WIRE
// RUN: not amp-opt %S/Inputs/mlp-sgd.mlir --tg-autodiff --tg-data-parallel=bucket-bytes=0 2>&1 | FileCheck %s --check-prefix=BUCKET
// RUN: amp-opt %S/Inputs/mlp-sgd.mlir --tg-autodiff --tg-data-parallel=grad-comm=f16 2>&1 >/dev/null | FileCheck %s --check-prefix=UNSCALED

// WIRE: for the --grad-comm option: Cannot find option named 'f8'!
// WIRE-NOT: see current operation
// BUCKET: error: tg-data-parallel: bucket-bytes must be >= 1, got 0
// BUCKET-NOT: see current operation
// UNSCALED: warning: tg-data-parallel: gradients of @train_step travel in f16 without loss scaling

func.func @nested(%w: tensor<4xf32> {tg.role = "param"}, %g: tensor<4xf32>,
                  %lr: tensor<f32> {tg.role = "lr"}, %c: i1) -> tensor<4xf32> {
  %r = scf.if %c -> tensor<4xf32> {
    // expected-error @+1 {{optimizer update inside a nested region}}
    %n = tg.sgd_update %w, %g, %lr : tensor<4xf32>
    scf.yield %n : tensor<4xf32>
  } else {
    scf.yield %w : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// expected-error @+1 {{@step is called by other functions}}
func.func @step(%w: tensor<4xf32> {tg.role = "param"}, %g: tensor<4xf32>,
                %lr: tensor<f32> {tg.role = "lr"}) -> tensor<4xf32> {
  %n = tg.sgd_update %w, %g, %lr : tensor<4xf32>
  return %n : tensor<4xf32>
}
func.func @caller(%w: tensor<4xf32>, %g: tensor<4xf32>, %lr: tensor<f32>) -> tensor<4xf32> {
  %n = func.call @step(%w, %g, %lr) : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %n : tensor<4xf32>
}

// -----

// expected-error @+1 {{@blocks has more than one block}}
func.func @blocks(%w: tensor<4xf32> {tg.role = "param"}, %g: tensor<4xf32>,
                  %lr: tensor<f32> {tg.role = "lr"})
    -> (tensor<f32> {tg.role = "loss"}, tensor<4xf32> {tg.role = "param"}) {
  %n = tg.sgd_update %w, %g, %lr : tensor<4xf32>
  cf.br ^done(%lr : tensor<f32>)
^done(%loss: tensor<f32>):
  return %loss, %n : tensor<f32>, tensor<4xf32>
}

// -----

// A step that already reduces is left as it is.
func.func @reduced(%w: tensor<4xf32> {tg.role = "param"}, %g: tensor<4xf32>,
                   %lr: tensor<f32> {tg.role = "lr"},
                   %comm: tensor<i64> {tg.role = "communicator"}) -> tensor<4xf32> {
  // expected-remark @+1 {{@reduced already reduces over ranks; left as it is}}
  %a = tg.all_reduce %comm, %g {reduction = "mean"} : tensor<i64>, tensor<4xf32>
  %n = tg.sgd_update %w, %a, %lr : tensor<4xf32>
  return %n : tensor<4xf32>
}
