// --amp-pipeline runs autodiff, AMP, loss scaling (not for bf16),
// canonicalize and cse, passing every option through.
// RUN: amp-opt %s --amp-pipeline="report=%t.json deny=tg.matmul" | FileCheck %s --check-prefix=DENY
// RUN: FileCheck %s --input-file=%t.json --check-prefix=REPORT
// RUN: amp-opt %s --amp-pipeline="mode=static init-scale=8 keep-io-types=true annotate=true" | FileCheck %s --check-prefix=STATIC
// RUN: amp-opt %s --amp-pipeline="precision=bf16 mode=static" | FileCheck %s --check-prefix=BF16
// RUN: amp-opt %s --amp-pipeline="mode=none" | FileCheck %s --check-prefix=NONE
// RUN: not amp-opt %s --amp-pipeline="precision=f8" 2>&1 | FileCheck %s --check-prefix=BAD
// Enum-valued options list their words in --help (one table per enum feeds
// the passes, the pipeline and the parser).
// RUN: amp-opt --help | FileCheck %s --check-prefix=HELP

// DENY-LABEL: func.func @step
// DENY-NOT: f16
// REPORT: "name": "tg.matmul"
// REPORT-NEXT: "location"
// REPORT-NEXT: "class": "deny"
// STATIC: arith.constant dense<8.000000e+00> : tensor<f32>
// STATIC: tg.matmul {{.*}} {amp.color = "allow"} : tensor<8x8xf16>
// STATIC: amp.scale
// STATIC-NOT: amp.update_scale
// BF16: tg.matmul {{.*}} : tensor<8x8xbf16>
// BF16-NOT: amp.scale
// NONE: tg.matmul {{.*}} : tensor<8x8xf16>
// NONE-NOT: amp.scale
// BAD: for the --precision option: Cannot find option named 'f8'!
// HELP-LABEL: --amp-pipeline
// HELP: --cast-op=<value>
// HELP-NEXT: =auto
// HELP-NEXT: =amp
// HELP-NEXT: =arith
// HELP-NEXT: =tosa
// HELP: --mode=<value>
// HELP-NEXT: =dynamic
// HELP-NEXT: =static
// HELP-NEXT: =none
// HELP: --precision=<value>
// HELP-NEXT: =f16
// HELP-NEXT: =bf16
// HELP-NEXT: =fp8
func.func @step(%w: tensor<8x8xf32> {tg.role = "param"}, %x: tensor<8x8xf32> {tg.role = "input"},
                %lr: tensor<f32> {tg.role = "lr"}) -> (tensor<f32> {tg.role = "loss"}, tensor<8x8xf32> {tg.role = "param"}) {
  %y = tg.matmul %x, %w : tensor<8x8xf32>
  %t = tg.tanh %y : tensor<8x8xf32>
  %l = tg.reduce_mean %t {dims = array<i64: 0, 1>} : tensor<8x8xf32>
  %g = tg.gradients %l wrt %w : tensor<f32>, tensor<8x8xf32>
  %w2 = tg.sgd_update %w, %g, %lr : tensor<8x8xf32>
  return %l, %w2 : tensor<f32>, tensor<8x8xf32>
}
