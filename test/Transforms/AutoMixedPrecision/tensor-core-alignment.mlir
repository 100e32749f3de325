// Every contraction the pass converts is checked against Tensor Core
// alignment (M, N and K multiples of 8 for f16/bf16 operands, 16 for FP8;
// a convolution's input and output channels): the report gives each one
// tensor_core_aligned and, when false, each dimension that misses, its
// padded size and whether a parameter owns it; remarks say the same, and
// one remark on the module sums it up. tg, linalg and TOSA alike.
// RUN: amp-opt %s --amp-auto-mixed-precision="report=%t.json remarks=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s --input-file=%t.json
// RUN: amp-opt %s --amp-auto-mixed-precision="precision=fp8 report=%t.fp8.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=FP8SUM
// RUN: FileCheck %s --check-prefix=FP8 --input-file=%t.fp8.json
// RUN: amp-opt %s --amp-auto-mixed-precision="tensor-core-summary=false" -o /dev/null 2>&1 | FileCheck %s --check-prefix=QUIET --allow-empty

// A classifier head: 784 inputs (aligned), 10 classes (N misses; the
// weight, a parameter, owns it); M, the batch, is 32.
// CHECK-LABEL: "function": "head"
// CHECK: "name": "tg.matmul"
// CHECK: "reason": "allow list"
// CHECK-NEXT: "tensor_core_aligned": false
// CHECK-NEXT: "tensor_core_multiple": 8
// CHECK-NEXT: "tensor_core_padding": [
// CHECK-NEXT: {
// CHECK-NEXT: "dimension": "N"
// CHECK-NEXT: "size": 10
// CHECK-NEXT: "padded_size": 16
// CHECK-NEXT: "parameter_owned": true
// CHECK-NEXT: }
// CHECK-NEXT: ]
// FP8-LABEL: "function": "head"
// FP8: "name": "tg.matmul"
// FP8: "tensor_core_aligned": false
// FP8-NEXT: "tensor_core_multiple": 16
// FP8: "dimension": "N"
// FP8-NEXT: "size": 10
// FP8-NEXT: "padded_size": 16
func.func @head(%x: tensor<32x784xf32> {tg.role = "input"},
                %w: tensor<784x10xf32> {tg.role = "param"}) -> tensor<32x10xf32> {
  // REMARK: remark: amp: f16 (allow list); misses Tensor Core alignment (multiples of 8): N = 10 (pad to 16)
  %y = tg.matmul %x, %w : tensor<32x784xf32>, tensor<784x10xf32>
  return %y : tensor<32x10xf32>
}

// A batch of 30 rows is M, which no parameter owns: misaligned, not
// paddable. A transposed weight still owns N and K.
// CHECK-LABEL: "function": "rows"
// CHECK: "name": "tg.matmul"
// CHECK: "tensor_core_aligned": false
// CHECK: "dimension": "M"
// CHECK-NEXT: "size": 30
// CHECK-NEXT: "padded_size": 32
// CHECK-NEXT: "parameter_owned": false
// CHECK: "dimension": "K"
// CHECK-NEXT: "size": 100
// CHECK-NEXT: "padded_size": 104
// CHECK-NEXT: "parameter_owned": true
func.func @rows(%x: tensor<30x100xf32> {tg.role = "input"},
                %w: tensor<64x100xf32> {tg.role = "param"}) -> tensor<30x64xf32> {
  // REMARK: remark: amp: f16 (allow list); misses Tensor Core alignment (multiples of 8): M = 30 (pad to 32), K = 100 (pad to 104)
  %y = tg.matmul %x, %w {transpose_b = true} : tensor<30x100xf32>, tensor<64x100xf32>
  return %y : tensor<30x64xf32>
}

// Aligned products and convolutions: a batched product's batch (3) does
// not matter; a convolution's input and output channels do.
// CHECK-LABEL: "function": "aligned"
// CHECK: "name": "tg.batch_matmul"
// CHECK: "tensor_core_aligned": true
// CHECK-NEXT: "tensor_core_multiple": 8
// CHECK-NEXT: }
// CHECK: "name": "tg.conv2d"
// CHECK: "tensor_core_aligned": true
func.func @aligned(%q: tensor<3x16x32xf32>, %k: tensor<3x32x8xf32>,
                   %x: tensor<2x8x8x16xf32>, %w: tensor<32x3x3x16xf32>)
    -> (tensor<3x16x8xf32>, tensor<2x6x6x32xf32>) {
  // REMARK: remark: amp: f16 (allow list); Tensor Core aligned
  %s = tg.batch_matmul %q, %k : tensor<3x16x32xf32>, tensor<3x32x8xf32>
  // REMARK: remark: amp: f16 (allow list); Tensor Core aligned
  %c = tg.conv2d %x, %w : tensor<2x8x8x16xf32>, tensor<32x3x3x16xf32>
  return %s, %c : tensor<3x16x8xf32>, tensor<2x6x6x32xf32>
}

// linalg: dimensions from the indexing maps. A 1000-class head over a
// constant weight is aligned for f16 (1000 = 125 x 8) but not for FP8
// (1000 = 62 x 16 + 8); a dynamic batch is not judged.
// CHECK-LABEL: "function": "linalg_head"
// CHECK: "name": "linalg.matmul"
// CHECK: "tensor_core_aligned": true
// CHECK-NEXT: "tensor_core_multiple": 8
// CHECK-NEXT: "tensor_core_dynamic": [
// CHECK-NEXT: "M"
// CHECK-NEXT: ]
// FP8-LABEL: "function": "linalg_head"
// FP8: "name": "linalg.matmul"
// FP8: "tensor_core_aligned": false
// FP8-NEXT: "tensor_core_multiple": 16
// FP8: "dimension": "N"
// FP8-NEXT: "size": 1000
// FP8-NEXT: "padded_size": 1008
// FP8-NEXT: "parameter_owned": true
func.func @linalg_head(%x: tensor<?x64xf32>) -> tensor<?x1000xf32> {
  %c0 = arith.constant 0 : index
  %w = arith.constant dense<0.5> : tensor<64x1000xf32>
  %z = arith.constant 0.0 : f32
  %b = tensor.dim %x, %c0 : tensor<?x64xf32>
  %e = tensor.empty(%b) : tensor<?x1000xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<?x1000xf32>) -> tensor<?x1000xf32>
  // REMARK: remark: amp: f16 (allow list (by what its body computes)); Tensor Core aligned
  %y = linalg.matmul ins(%x, %w : tensor<?x64xf32>, tensor<64x1000xf32>) outs(%acc : tensor<?x1000xf32>) -> tensor<?x1000xf32>
  return %y : tensor<?x1000xf32>
}

// A linalg convolution with 3 input channels (an RGB image) misses; its
// filter, an argument with no tg.role, is not known to be a parameter.
// CHECK-LABEL: "function": "linalg_conv"
// CHECK: "name": "linalg.conv_2d_nhwc_hwcf"
// CHECK: "tensor_core_aligned": false
// CHECK: "dimension": "input_channels"
// CHECK-NEXT: "size": 3
// CHECK-NEXT: "padded_size": 8
// CHECK-NEXT: "parameter_owned": false
func.func @linalg_conv(%x: tensor<1x10x10x3xf32>, %w: tensor<3x3x3x16xf32>) -> tensor<1x8x8x16xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x8x16xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  // REMARK: remark: amp: f16 (allow list (by what its body computes)); misses Tensor Core alignment (multiples of 8): input_channels = 3 (pad to 8)
  %y = linalg.conv_2d_nhwc_hwcf ins(%x, %w : tensor<1x10x10x3xf32>, tensor<3x3x3x16xf32>) outs(%acc : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  return %y : tensor<1x8x8x16xf32>
}

// TOSA: tosa.matmul's [N, H, C] x [N, C, W] gives M = H, K = C, N = W.
// CHECK-LABEL: "function": "tosa_matmul"
// CHECK: "name": "tosa.matmul"
// CHECK: "tensor_core_aligned": false
// CHECK: "dimension": "N"
// CHECK-NEXT: "size": 12
// CHECK-NEXT: "padded_size": 16
func.func @tosa_matmul(%a: tensor<2x8x16xf32>, %b: tensor<2x16x12xf32>) -> tensor<2x8x12xf32> {
  %za = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %zb = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  // REMARK: remark: amp: f16 (allow list); misses Tensor Core alignment (multiples of 8): N = 12 (pad to 16)
  %y = tosa.matmul %a, %b, %za, %zb : (tensor<2x8x16xf32>, tensor<2x16x12xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x8x12xf32>
  return %y : tensor<2x8x12xf32>
}

// One line sums the module up; the report's totals say the same. For FP8
// the multiple is 16: only the convolution of @aligned meets it.
// REMARK: remark: amp: Tensor Cores: 3 of 7 f16 contractions aligned (multiples of 8); 4 misaligned, 2 of them in a dimension a parameter owns (paddable){{$}}
// CHECK: "tensor_core_contractions": 7
// CHECK-NEXT: "tensor_core_aligned": 3
// CHECK-NEXT: "tensor_core_paddable": 2
// FP8SUM: remark: amp: Tensor Cores: 1 of 7 fp8 contractions aligned (multiples of 16); 6 misaligned, 3 of them in a dimension a parameter owns (paddable){{$}}
// FP8: "tensor_core_contractions": 7
// FP8-NEXT: "tensor_core_aligned": 1
// FP8-NEXT: "tensor_core_paddable": 3
// tensor-core-summary=false: no remark at all.
// QUIET-NOT: remark
