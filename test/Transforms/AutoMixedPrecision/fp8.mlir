// precision=fp8: the graph converts as for bf16, then every operand of an
// allow-list contraction reads FP8 through one quantize/dequantize chain per
// value: E4M3 for weights and activations, E5M2 for gradients (hybrid), a
// delayed scale from an amax history the step carries (tg.role
// "amax_history", returned after this step's amax is recorded). predict
// has no backward pass and no state: its operands scale by their own amax.
//
// RUN: amp-opt %s --tg-autodiff --amp-auto-mixed-precision="precision=fp8 amax-history-len=16" | FileCheck %s
// RUN: amp-opt %s --tg-autodiff --amp-auto-mixed-precision="precision=fp8 fp8-format=e4m3 fp8-scaling=current fp8-margin=1" | FileCheck %s --check-prefix=E4M3
// RUN: amp-opt %s --tg-autodiff --amp-auto-mixed-precision="precision=fp8" --amp-auto-mixed-precision="precision=fp8" | FileCheck %s --check-prefix=TWICE
// RUN: amp-opt %s --tg-autodiff --amp-auto-mixed-precision="precision=fp8 remarks=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: amp-opt %s --tg-autodiff --amp-auto-mixed-precision="precision=fp8 report=%t.json" -o /dev/null
// RUN: FileCheck %s --check-prefix=REPORT < %t.json
// RUN: amp-opt %s --amp-pipeline="precision=fp8 amax-history-len=16" | FileCheck %s --check-prefix=PIPELINE
// RUN: not amp-opt %s --amp-auto-mixed-precision="precision=fp8 fp8-format=e3m4" 2>&1 | FileCheck %s --check-prefix=BAD-FORMAT
// RUN: not amp-opt %s --amp-auto-mixed-precision="precision=fp8 fp8-scaling=just-in-time" 2>&1 | FileCheck %s --check-prefix=BAD-SCALING
// RUN: not amp-opt %s --amp-auto-mixed-precision="precision=fp8 amax-history-len=0" 2>&1 | FileCheck %s --check-prefix=BAD-LEN
// RUN: not amp-opt %s --amp-auto-mixed-precision="precision=fp8 fp8-margin=65" 2>&1 | FileCheck %s --check-prefix=BAD-MARGIN

// CHECK-LABEL: func.func @train_step
// CHECK-SAME: %[[HX:[^:]*]]: tensor<16xf32> {tg.init_value = 0.000000e+00 : f32, tg.role = "amax_history"}, %[[HW:[^:]*]]: tensor<16xf32> {tg.init_value = 0.000000e+00 : f32, tg.role = "amax_history"}, %[[HDY:[^:]*]]: tensor<16xf32> {tg.init_value = 0.000000e+00 : f32, tg.role = "amax_history"})
// CHECK-SAME: tensor<16xf32> {tg.role = "amax_history"}, tensor<16xf32> {tg.role = "amax_history"}, tensor<16xf32> {tg.role = "amax_history"})
// CHECK: %[[W:.*]] = amp.cast %arg0 : tensor<784x10xf32> to tensor<784x10xbf16>
// CHECK: %[[SW:.*]] = amp.fp8_scale %[[HW]] {format = f8E4M3FN} : tensor<16xf32>
// CHECK: %[[AW:.*]] = amp.amax %[[W]] : tensor<784x10xbf16>
// CHECK: %[[QW:.*]] = amp.quantize %[[W]], %[[SW]] : tensor<784x10xbf16> to tensor<784x10xf8E4M3FN>
// CHECK: %[[DW:.*]] = amp.dequantize %[[QW]], %[[SW]] : tensor<784x10xf8E4M3FN> to tensor<784x10xbf16>
// CHECK: %[[NHW:.*]] = amp.record_amax %[[HW]], %[[AW]] : tensor<16xf32>
// CHECK: %[[X:.*]] = amp.cast %arg2 : tensor<32x784xf32> to tensor<32x784xbf16>
// CHECK: %[[SX:.*]] = amp.fp8_scale %[[HX]] {format = f8E4M3FN}
// CHECK: %[[QX:.*]] = amp.quantize %[[X]], %[[SX]] : tensor<32x784xbf16> to tensor<32x784xf8E4M3FN>
// CHECK: %[[DX:.*]] = amp.dequantize %[[QX]], %[[SX]]
// CHECK: %[[NHX:.*]] = amp.record_amax %[[HX]]
// CHECK: tg.matmul %[[DX]], %[[DW]] : tensor<32x784xbf16>, tensor<784x10xbf16>
// CHECK: tg.grad_seed
// CHECK: %[[G:.*]] = amp.cast %{{.*}} : tensor<32x10xf32> to tensor<32x10xbf16>
// CHECK: %[[SG:.*]] = amp.fp8_scale %[[HDY]] {format = f8E5M2}
// CHECK: %[[QG:.*]] = amp.quantize %[[G]], %[[SG]] : tensor<32x10xbf16> to tensor<32x10xf8E5M2>
// CHECK: %[[DG:.*]] = amp.dequantize %[[QG]], %[[SG]] : tensor<32x10xf8E5M2> to tensor<32x10xbf16>
// CHECK: %[[NHDY:.*]] = amp.record_amax %[[HDY]]
// The weight gradient reuses the forward's FP8 activation.
// CHECK: tg.matmul %[[DX]], %[[DG]] {transpose_a = true}
// CHECK: return %{{.*}}, %{{.*}}, %{{.*}}, %[[NHX]], %[[NHW]], %[[NHDY]] :
// CHECK-LABEL: func.func @predict
// CHECK-NOT: amax_history
// CHECK: %[[PA:.*]] = amp.amax %{{.*}} : tensor<784x10xbf16>
// CHECK: %[[PS:.*]] = amp.fp8_scale %[[PA]] {format = f8E4M3FN} : tensor<f32>
// CHECK: amp.quantize %{{.*}}, %[[PS]]
// CHECK-NOT: amp.record_amax

// A loop: the weight is quantized once, before it; the carried value in the
// loop body, by its own amax each iteration.
// CHECK-LABEL: func.func @loop
// CHECK: %[[LW:.*]] = amp.cast %{{.*}} : tensor<8x8xf32> to tensor<8x8xbf16>
// CHECK: amp.quantize %[[LW]]
// CHECK: %[[LDW:.*]] = amp.dequantize
// CHECK: scf.for {{.*}} iter_args(%[[H:.*]] = %{{.*}}) -> (tensor<4x8xbf16>)
// CHECK-NEXT: %[[HA:.*]] = amp.amax %[[H]]
// CHECK-NEXT: %[[HS:.*]] = amp.fp8_scale %[[HA]] {format = f8E4M3FN} : tensor<f32>
// CHECK-NEXT: %[[HQ:.*]] = amp.quantize %[[H]], %[[HS]]
// CHECK-NEXT: %[[HD:.*]] = amp.dequantize %[[HQ]], %[[HS]]
// CHECK-NEXT: tg.matmul %[[HD]], %[[LDW]]

// Idempotent: a second run finds no f32 contraction left.
// TWICE-LABEL: func.func @train_step
// TWICE-SAME: %arg7: tensor<1024xf32> {tg.init_value = 0.000000e+00 : f32, tg.role = "amax_history"}) ->
// TWICE-COUNT-3: amp.record_amax
// TWICE-NOT: amp.record_amax
// TWICE-LABEL: func.func @predict

// E4M3-LABEL: func.func @train_step
// E4M3-NOT: amax_history
// E4M3-NOT: f8E5M2
// E4M3: amp.fp8_scale %{{.*}} {format = f8E4M3FN, margin = 1 : i64} : tensor<f32>
// E4M3-NOT: f8E5M2
// E4M3: tg.grad_seed
// E4M3-NOT: f8E5M2
// E4M3: amp.quantize {{.*}} : tensor<32x10xbf16> to tensor<32x10xf8E4M3FN>
// E4M3-NOT: f8E5M2

// REMARK: remark: amp: operand #0 in f8E4M3FN, delayed scaling (weight or activation: E4M3 for its precision)
// REMARK: remark: amp: operand #1 in f8E5M2, delayed scaling (gradient (downstream of tg.grad_seed): E5M2 for its range (hybrid format))
// REMARK: remark: amp: operand #0 in f8E4M3FN, current scaling (weight or activation: E4M3 for its precision; current scaling: the function is not a training step (tg.role arguments and a tg.grad_seed) whose signature can carry an amax history)

// REPORT: "precision": "fp8"
// REPORT: "fp8_operands": [
// REPORT: "function": "train_step"
// REPORT-NEXT: "op": "tg.matmul"
// REPORT-NEXT: "location":
// REPORT-NEXT: "operand": 0
// REPORT-NEXT: "format": "f8E4M3FN"
// REPORT-NEXT: "scaling": "delayed"
// REPORT-NEXT: "history_argument": 5
// REPORT: "format": "f8E5M2"
// REPORT: "function": "predict"
// REPORT: "scaling": "current"


// Loss scaling follows, as for f16: its state comes after the histories.
// PIPELINE-LABEL: func.func @train_step
// PIPELINE-SAME: tg.role = "amax_history"}, %{{.*}}: tensor<f32> {tg.init_value = {{.*}}, tg.role = "loss_scale"}
// PIPELINE: amp.quantize
// The pipeline's canonicalization fuses each contraction of two FP8
// operands into one FP8 GEMM.
// PIPELINE: amp.scaled_matmul {{.*}} : tensor<32x784xf8E4M3FN>, tensor<784x10xf8E4M3FN> -> tensor<32x10xbf16>
// PIPELINE: amp.scaled_matmul {{.*}} {transpose_a = true} : tensor<32x784xf8E4M3FN>, tensor<32x10xf8E5M2> -> tensor<784x10xbf16>
// PIPELINE: amp.update_scale

// BAD-FORMAT: for the --fp8-format option: Cannot find option named 'e3m4'!
// BAD-SCALING: for the --fp8-scaling option: Cannot find option named 'just-in-time'!
// BAD-LEN: error: amp-auto-mixed-precision: amax-history-len must be in [1, 2^20], got 0
// BAD-MARGIN: error: amp-auto-mixed-precision: fp8-margin must be in [0, 64], got 65

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

func.func @predict(%w: tensor<784x10xf32> {tg.role = "param"},
                   %b: tensor<10xf32> {tg.role = "param"},
                   %x: tensor<32x784xf32> {tg.role = "input"})
    -> (tensor<32x10xf32> {tg.role = "logits"}) {
  %h = tg.matmul %x, %w : tensor<32x784xf32>, tensor<784x10xf32>
  %logits = tg.bias_add %h, %b : tensor<32x10xf32>, tensor<10xf32>
  return %logits : tensor<32x10xf32>
}

func.func @loop(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%h = %x) -> tensor<4x8xf32> {
    %m = tg.matmul %h, %w : tensor<4x8xf32>, tensor<8x8xf32>
    scf.yield %m : tensor<4x8xf32>
  }
  return %r : tensor<4x8xf32>
}
