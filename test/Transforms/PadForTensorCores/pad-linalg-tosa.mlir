// --amp-pad-for-tensor-cores on linalg and TOSA: operands padded with
// zeros in the dialect's own ops (tensor.pad, tosa.pad), the op rebuilt,
// the results cut back (tensor.extract_slice, tosa.slice), signatures and
// result types unchanged. Ops zeros would change, or that the rewrite
// cannot express, keep their shape and say why with remarks=true.
// (test/Integration/UpstreamLowering/pad-tensor-cores.mlir runs the
// padded forms against the unpadded ones.)
// RUN: amp-opt %s --amp-pad-for-tensor-cores | FileCheck %s
// RUN: amp-opt %s --amp-pad-for-tensor-cores="remarks=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: amp-opt %s --amp-pad-for-tensor-cores="precision=fp8" | FileCheck %s --check-prefix=FP8

#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>

// A 1000-class head over a dynamic batch is aligned for f16 (1000 = 125 x
// 8) and grows to 1008 for FP8; the accumulator is padded and the result
// cut back to the batch it had.
// CHECK-LABEL: func.func @head
// CHECK-NOT: tensor.pad
// CHECK: linalg.matmul ins({{.*}} : tensor<?x64xf32>, tensor<64x1000xf32>)
// FP8-LABEL: func.func @head
// FP8: %[[W:.*]] = tensor.pad %{{.*}} low[0, 0] high[0, 8]
// FP8: } : tensor<64x1000xf32> to tensor<64x1008xf32>
// FP8: %[[ACC:.*]] = tensor.pad %{{.*}} low[0, 0] high[0, 8]
// FP8: } : tensor<?x1000xf32> to tensor<?x1008xf32>
// FP8: %[[M:.*]] = linalg.matmul {amp.tensor_core_padded = {N = 1000 : i64}} ins(%arg0, %[[W]] : tensor<?x64xf32>, tensor<64x1008xf32>) outs(%[[ACC]] : tensor<?x1008xf32>)
// FP8: %[[B:.*]] = tensor.dim
// FP8: %[[Y:.*]] = tensor.extract_slice %[[M]][0, 0] [%[[B]], 1000] [1, 1] : tensor<?x1008xf32> to tensor<?x1000xf32>
// FP8: return %[[Y]] : tensor<?x1000xf32>
func.func @head(%x: tensor<?x64xf32>) -> tensor<?x1000xf32> {
  %c0 = arith.constant 0 : index
  %w = arith.constant dense<0.5> : tensor<64x1000xf32>
  %z = arith.constant 0.0 : f32
  %b = tensor.dim %x, %c0 : tensor<?x64xf32>
  %e = tensor.empty(%b) : tensor<?x1000xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<?x1000xf32>) -> tensor<?x1000xf32>
  %y = linalg.matmul ins(%x, %w : tensor<?x64xf32>, tensor<64x1000xf32>) outs(%acc : tensor<?x1000xf32>) -> tensor<?x1000xf32>
  return %y : tensor<?x1000xf32>
}

// A generic contraction of f16 values widened to f32: K (12) grows to 16 in
// both operands; no result grows, so nothing is cut.
// REMARK: remark: amp: padded for Tensor Cores (multiples of 8): K 12 -> 16
// CHECK-LABEL: func.func @widening
// CHECK: tensor.pad %arg0 low[0, 0] high[0, 4]
// CHECK: tensor.pad %{{.*}} low[0, 0] high[4, 0]
// CHECK: linalg.generic {{.*}} ins({{.*}} : tensor<16x16xf16>, tensor<16x16xf16>) outs({{.*}} : tensor<16x16xf32>) attrs = {amp.tensor_core_padded = {K = 12 : i64}}
// CHECK-NOT: tensor.extract_slice
// CHECK: return
func.func @widening(%x: tensor<16x12xf16>) -> tensor<16x16xf32> {
  %w = arith.constant dense<0.5> : tensor<12x16xf16>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %y = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<16x12xf16>, tensor<12x16xf16>) outs(%acc : tensor<16x16xf32>) {
  ^bb0(%a: f16, %b: f16, %o: f32):
    %a32 = arith.extf %a : f16 to f32
    %b32 = arith.extf %b : f16 to f32
    %p = arith.mulf %a32, %b32 : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<16x16xf32>
  return %y : tensor<16x16xf32>
}

// Max-plus: a zero appended along K would enter each max, so K stays.
// REMARK: remark: amp: misses Tensor Core alignment (K = 12 (pad to 16)) but cannot be padded
// CHECK-LABEL: func.func @max_plus
// CHECK-NOT: tensor.pad
// CHECK: return
func.func @max_plus(%x: tensor<16x12xf32>) -> tensor<16x16xf32> {
  %w = arith.constant dense<0.5> : tensor<12x16xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %y = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<16x12xf32>, tensor<12x16xf32>) outs(%acc : tensor<16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.addf %a, %b : f32
    %m = arith.maximumf %o, %p : f32
    linalg.yield %m : f32
  } -> tensor<16x16xf32>
  return %y : tensor<16x16xf32>
}

// An exponent in the product: exp(0) is 1, so K stays.
// REMARK: remark: amp: misses Tensor Core alignment (K = 12 (pad to 16)) but cannot be padded
// CHECK-LABEL: func.func @exp_product
// CHECK-NOT: tensor.pad
// CHECK: return
func.func @exp_product(%x: tensor<16x12xf32>) -> tensor<16x16xf32> {
  %w = arith.constant dense<0.5> : tensor<12x16xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %y = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<16x12xf32>, tensor<12x16xf32>) outs(%acc : tensor<16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %ea = math.exp %a : f32
    %p = arith.mulf %ea, %b : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<16x16xf32>
  return %y : tensor<16x16xf32>
}

// TOSA: K and N of a batched product grow; the zero points stay.
// REMARK: remark: amp: padded for Tensor Cores (multiples of 8): N 10 -> 16, K 12 -> 16
// CHECK-LABEL: func.func @tosa_product
// CHECK: %[[PA:.*]] = tosa.const_shape {values = dense<[0, 0, 0, 0, 0, 4]> : tensor<6xindex>}
// CHECK: %[[A:.*]] = tosa.pad %arg0, %[[PA]], %{{.*}} : (tensor<2x8x12xf32>, !tosa.shape<6>, tensor<1xf32>) -> tensor<2x8x16xf32>
// CHECK: %[[PB:.*]] = tosa.const_shape {values = dense<[0, 0, 0, 4, 0, 6]> : tensor<6xindex>}
// CHECK: %[[B:.*]] = tosa.pad %{{.*}}, %[[PB]], %{{.*}} -> tensor<2x16x16xf32>
// CHECK: %[[M:.*]] = tosa.matmul %[[A]], %[[B]], %{{.*}}, %{{.*}} {amp.tensor_core_padded = {K = 12 : i64, N = 10 : i64}} : {{.*}} -> tensor<2x8x16xf32>
// CHECK: %[[Y:.*]] = tosa.slice %[[M]], {{.*}} : (tensor<2x8x16xf32>, !tosa.shape<3>, !tosa.shape<3>) -> tensor<2x8x10xf32>
// CHECK: return %[[Y]] : tensor<2x8x10xf32>
func.func @tosa_product(%a: tensor<2x8x12xf32>) -> tensor<2x8x10xf32> {
  %b = "tosa.const"() <{values = dense<0.5> : tensor<2x12x10xf32>}> : () -> tensor<2x12x10xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %y = tosa.matmul %a, %b, %zp, %zp : (tensor<2x8x12xf32>, tensor<2x12x10xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x8x10xf32>
  return %y : tensor<2x8x10xf32>
}

// A TOSA convolution grows both channel counts: the input's last axis, the
// weight's first and last, the per-channel bias; the output is cut back.
// REMARK: remark: amp: padded for Tensor Cores (multiples of 8): input_channels 3 -> 8, output_channels 6 -> 8
// CHECK-LABEL: func.func @tosa_conv
// CHECK: tosa.pad %arg0, {{.*}} -> tensor<2x8x8x8xf32>
// CHECK: tosa.pad {{.*}} : (tensor<6x3x3x3xf32>, !tosa.shape<8>, tensor<1xf32>) -> tensor<8x3x3x8xf32>
// CHECK: tosa.pad {{.*}} : (tensor<6xf32>, !tosa.shape<2>, tensor<1xf32>) -> tensor<8xf32>
// CHECK: tosa.conv2d {{.*}} -> tensor<2x8x8x8xf32>
// CHECK: tosa.slice {{.*}} -> tensor<2x8x8x6xf32>
func.func @tosa_conv(%x: tensor<2x8x8x3xf32>) -> tensor<2x8x8x6xf32> {
  %w = "tosa.const"() <{values = dense<0.25> : tensor<6x3x3x3xf32>}> : () -> tensor<6x3x3x3xf32>
  %bias = "tosa.const"() <{values = dense<0.1> : tensor<6xf32>}> : () -> tensor<6xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %y = tosa.conv2d %x, %w, %bias, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<2x8x8x3xf32>, tensor<6x3x3x3xf32>, tensor<6xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x8x8x6xf32>
  return %y : tensor<2x8x8x6xf32>
}

// A quantized TOSA product whose zero point is 3: an appended zero would
// stand for -3, so it stays.
// REMARK: remark: amp: misses Tensor Core alignment (N = 10 (pad to 16), K = 12 (pad to 16)) but cannot be padded
// CHECK-LABEL: func.func @tosa_quantized
// CHECK-NOT: tosa.pad
// CHECK: return
func.func @tosa_quantized(%a: tensor<1x8x12xi8>) -> tensor<1x8x10xi32> {
  %b = "tosa.const"() <{values = dense<2> : tensor<1x12x10xi8>}> : () -> tensor<1x12x10xi8>
  %za = "tosa.const"() <{values = dense<3> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zb = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %y = tosa.matmul %a, %b, %za, %zb : (tensor<1x8x12xi8>, tensor<1x12x10xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x10xi32>
  return %y : tensor<1x8x10xi32>
}

// A dynamic TOSA result cannot be cut back with constant sizes: it stays.
// REMARK: remark: amp: misses Tensor Core alignment (N = 10 (pad to 16)) but cannot be padded
// CHECK-LABEL: func.func @tosa_dynamic
// CHECK-NOT: tosa.pad
// CHECK: return
func.func @tosa_dynamic(%a: tensor<?x8x16xf32>, %b: tensor<?x16x10xf32> {tg.role = "param"}) -> tensor<?x8x10xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %y = tosa.matmul %a, %b, %zp, %zp : (tensor<?x8x16xf32>, tensor<?x16x10xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<?x8x10xf32>
  return %y : tensor<?x8x10xf32>
}

// The accumulator read through a truncation (i32 -> i8 -> i32): each added
// step would wrap the finished sum again, so K stays.
// REMARK: remark: amp: misses Tensor Core alignment (K = 12 (pad to 16)) but cannot be padded
// CHECK-LABEL: func.func @lossy_accumulator
// CHECK-NOT: tensor.pad
// CHECK: return
func.func @lossy_accumulator(%x: tensor<8x12xi32>) -> tensor<8x8xi32> {
  %w = arith.constant dense<11> : tensor<12x8xi32>
  %z = arith.constant 0 : i32
  %e = tensor.empty() : tensor<8x8xi32>
  %acc = linalg.fill ins(%z : i32) outs(%e : tensor<8x8xi32>) -> tensor<8x8xi32>
  %y = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<8x12xi32>, tensor<12x8xi32>) outs(%acc : tensor<8x8xi32>) {
  ^bb0(%a: i32, %b: i32, %o: i32):
    %o8 = arith.trunci %o : i32 to i8
    %o32 = arith.extsi %o8 : i8 to i32
    %p = arith.muli %a, %b : i32
    %s = arith.addi %o32, %p : i32
    linalg.yield %s : i32
  } -> tensor<8x8xi32>
  return %y : tensor<8x8xi32>
}

// A body that divides by the weight: grown N would divide by its zero
// columns (a trap on x86), so even a parallel loop stays.
// REMARK: remark: amp: misses Tensor Core alignment (M = 4 (pad to 8), N = 10 (pad to 16)) but cannot be padded
// CHECK-LABEL: func.func @dividing_body
// CHECK-NOT: tensor.pad
// CHECK: return
func.func @dividing_body(%x: tensor<4x16xi32>, %c: tensor<4x10xi32>) -> tensor<4x10xi32> {
  %w = arith.constant dense<3> : tensor<16x10xi32>
  %y = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<4x16xi32>, tensor<16x10xi32>) outs(%c : tensor<4x10xi32>) {
  ^bb0(%a: i32, %b: i32, %o: i32):
    %q = arith.divsi %a, %b : i32
    %s = arith.addi %o, %q : i32
    linalg.yield %s : i32
  } -> tensor<4x10xi32>
  return %y : tensor<4x10xi32>
}

// Complex elements have no zero constant here: N stays (no crash).
// REMARK: remark: amp: misses Tensor Core alignment (N = 10 (pad to 16)) but cannot be padded
// CHECK-LABEL: func.func @complex_product
// CHECK-NOT: tensor.pad
// CHECK: return
func.func @complex_product(%x: tensor<16x16xcomplex<f32>>) -> tensor<16x10xcomplex<f32>> {
  %w = arith.constant dense<(0.5, 0.0)> : tensor<16x10xcomplex<f32>>
  %e = tensor.empty() : tensor<16x10xcomplex<f32>>
  %y = linalg.matmul ins(%x, %w : tensor<16x16xcomplex<f32>>, tensor<16x10xcomplex<f32>>) outs(%e : tensor<16x10xcomplex<f32>>) -> tensor<16x10xcomplex<f32>>
  return %y : tensor<16x10xcomplex<f32>>
}

// A TOSA axis to grow that is dynamic in one operand (the input's channels
// here, the bias's there) cannot be padded to a static size: it stays.
// REMARK: remark: amp: misses Tensor Core alignment (input_channels = 12 (pad to 16)) but cannot be padded
// CHECK-LABEL: func.func @tosa_dynamic_channels
// CHECK-NOT: tosa.pad
// CHECK: return
func.func @tosa_dynamic_channels(%x: tensor<1x8x8x?xf32>) -> tensor<1x8x8x16xf32> {
  %w = "tosa.const"() <{values = dense<0.25> : tensor<16x3x3x12xf32>}> : () -> tensor<16x3x3x12xf32>
  %bias = "tosa.const"() <{values = dense<0.1> : tensor<16xf32>}> : () -> tensor<16xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %y = tosa.conv2d %x, %w, %bias, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x8x8x?xf32>, tensor<16x3x3x12xf32>, tensor<16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x16xf32>
  return %y : tensor<1x8x8x16xf32>
}
// REMARK: remark: amp: misses Tensor Core alignment (output_channels = 10 (pad to 16)) but cannot be padded
// CHECK-LABEL: func.func @tosa_dynamic_bias
// CHECK-NOT: tosa.pad
// CHECK: return
func.func @tosa_dynamic_bias(%x: tensor<1x8x8x16xf32>, %bias: tensor<?xf32>) -> tensor<1x8x8x10xf32> {
  %w = "tosa.const"() <{values = dense<0.25> : tensor<10x3x3x16xf32>}> : () -> tensor<10x3x3x16xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %y = tosa.conv2d %x, %w, %bias, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x8x8x16xf32>, tensor<10x3x3x16xf32>, tensor<?xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x10xf32>
  return %y : tensor<1x8x8x10xf32>
}
