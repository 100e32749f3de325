// The report and the remarks describe the ops of the input and the
// constants the pass folded, never an op the pass made. The FP8
// quantization makes ops after the rewrite has erased the ones the
// conversion left unused (here the f32 fills' empty tensors), and may put
// them at an erased op's address; the colouring forgets erased ops, so
// such an op is not described as the one it replaced.
// RUN: amp-opt %s --amp-auto-mixed-precision="precision=fp8 report=%t.json remarks=true" -o /dev/null 2>&1 | FileCheck %s
// RUN: FileCheck %s --input-file=%t.json --check-prefix=REPORT

// FP8 puts the quantizations of %x at %x's location: no remark and no
// op of the report names that location (its cast does), and the report
// counts the six ops the input has beside its constant.
// CHECK-NOT: fp8-describes-input-ops.mlir:[[#@LINE+5]]:29: remark
// CHECK: remark: amp: Tensor Cores
// REPORT-NOT: fp8-describes-input-ops.mlir\":[[#@LINE+3]]:29)
// REPORT: "casts": [
// REPORT: "ops": 6,
func.func @sum_pool_between(%x: tensor<1x8x8x8xf32>, %w: tensor<1x1x8x8xf32>) -> tensor<1x7x7x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x8x8x8xf32>, tensor<1x1x8x8xf32>) outs(%f : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %win = tensor.empty() : tensor<2x2xf32>
  %ep = tensor.empty() : tensor<1x7x7x8xf32>
  %fp = linalg.fill ins(%zero : f32) outs(%ep : tensor<1x7x7x8xf32>) -> tensor<1x7x7x8xf32>
  %p = linalg.pooling_nhwc_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%c, %win : tensor<1x8x8x8xf32>, tensor<2x2xf32>) outs(%fp : tensor<1x7x7x8xf32>) -> tensor<1x7x7x8xf32>
  %c2 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x7x7x8xf32>, tensor<1x1x8x8xf32>) outs(%fp : tensor<1x7x7x8xf32>) -> tensor<1x7x7x8xf32>
  return %c2 : tensor<1x7x7x8xf32>
}

