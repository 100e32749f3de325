// --amp-pad-for-tensor-cores rebuilds each contraction whose misaligned
// Tensor Core dimension a parameter owns on operands padded with zeros and
// slices the results back: signatures and result types stay, and the new
// op records the sizes it had. Dimensions no parameter owns stay.
// RUN: amp-opt %s --amp-pad-for-tensor-cores | FileCheck %s
// RUN: amp-opt %s --amp-pad-for-tensor-cores="remarks=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: amp-opt %s --amp-pad-for-tensor-cores="precision=fp8" | FileCheck %s --check-prefix=FP8
// RUN: not amp-opt %s --amp-pad-for-tensor-cores="precision=f32" 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: for the --precision option: Cannot find option named 'f32'!

// A classifier's 10 classes (N) grow to 16 with zero columns of the weight;
// the product is sliced back to 10 columns.
// REMARK: remark: amp: padded for Tensor Cores (multiples of 8): N 10 -> 16
// CHECK-LABEL: func.func @head
// CHECK-SAME: -> tensor<32x10xf32>
// CHECK: %[[W:.*]] = tg.pad %arg1 {high = array<i64: 0, 6>, low = array<i64: 0, 0>} : tensor<784x10xf32>
// CHECK: %[[M:.*]] = tg.matmul %arg0, %[[W]] {amp.tensor_core_padded = {N = 10 : i64}} : tensor<32x784xf32>, tensor<784x16xf32>
// CHECK: %[[Y:.*]] = tg.slice %[[M]] {offsets = array<i64: 0, 0>, sizes = array<i64: 32, 10>} : tensor<32x16xf32>
// CHECK: return %[[Y]] : tensor<32x10xf32>
// FP8-LABEL: func.func @head
// FP8: tg.matmul {{.*}} {amp.tensor_core_padded = {N = 10 : i64}} : tensor<32x784xf32>, tensor<784x16xf32>
func.func @head(%x: tensor<32x784xf32> {tg.role = "input"},
                %w: tensor<784x10xf32> {tg.role = "param"}) -> tensor<32x10xf32> {
  %y = tg.matmul %x, %w : tensor<32x784xf32>, tensor<784x10xf32>
  return %y : tensor<32x10xf32>
}

// A hidden width of 100 (K, owned by the transposed weight) gets zeros in
// both operands and needs no slice; M (30 rows of a batch) is the user's.
// REMARK: remark: amp: padded for Tensor Cores (multiples of 8): K 100 -> 104
// CHECK-LABEL: func.func @hidden
// CHECK: %[[X:.*]] = tg.pad %arg0 {high = array<i64: 0, 4>, low = array<i64: 0, 0>, value = -0.000000e+00 : f64} : tensor<30x100xf32>
// CHECK: %[[W:.*]] = tg.pad %arg1 {high = array<i64: 0, 4>, low = array<i64: 0, 0>} : tensor<64x100xf32>
// CHECK: %[[M:.*]] = tg.matmul %[[X]], %[[W]] {amp.tensor_core_padded = {K = 100 : i64}, transpose_b = true} : tensor<30x104xf32>, tensor<64x104xf32>
// CHECK-NOT: tg.slice
// CHECK: return %[[M]] : tensor<30x64xf32>
// For FP8 (multiples of 16) K grows to 112 and N (64) is aligned already.
// FP8-LABEL: func.func @hidden
// FP8: tg.matmul {{.*}} {amp.tensor_core_padded = {K = 100 : i64}, transpose_b = true} : tensor<30x112xf32>, tensor<64x112xf32>
func.func @hidden(%x: tensor<30x100xf32> {tg.role = "input"},
                  %w: tensor<64x100xf32> {tg.role = "param"}) -> tensor<30x64xf32> {
  %y = tg.matmul %x, %w {transpose_b = true} : tensor<30x100xf32>, tensor<64x100xf32>
  return %y : tensor<30x64xf32>
}

// Through an amp.cast, a transposed left operand a parameter owns: M.
// REMARK: remark: amp: padded for Tensor Cores (multiples of 8): M 12 -> 16
// CHECK-LABEL: func.func @through_cast
// CHECK: %[[C:.*]] = amp.cast %arg0 : tensor<24x12xf32> to tensor<24x12xf16>
// CHECK: %[[A:.*]] = tg.pad %[[C]] {high = array<i64: 0, 4>, low = array<i64: 0, 0>, value = -0.000000e+00 : f64} : tensor<24x12xf16>
// CHECK-NOT: tg.pad
// CHECK: %[[M:.*]] = tg.matmul %[[A]], %arg1 {amp.tensor_core_padded = {M = 12 : i64}, transpose_a = true} : tensor<24x16xf16>, tensor<24x8xf16>
// CHECK: tg.slice %[[M]] {offsets = array<i64: 0, 0>, sizes = array<i64: 12, 8>} : tensor<16x8xf16>
func.func @through_cast(%p: tensor<24x12xf32> {tg.role = "param"},
                        %b: tensor<24x8xf16>) -> tensor<12x8xf16> {
  %c = amp.cast %p : tensor<24x12xf32> to tensor<24x12xf16>
  %y = tg.matmul %c, %b {transpose_a = true} : tensor<24x12xf16>, tensor<24x8xf16>
  return %y : tensor<12x8xf16>
}

// Convolution channels: 3 input channels grow to 8 (the image and the
// filter), 20 output channels to 24 (the filter; the output is sliced).
// REMARK: remark: amp: padded for Tensor Cores (multiples of 8): input_channels 3 -> 8, output_channels 20 -> 24
// CHECK-LABEL: func.func @conv
// CHECK: %[[X:.*]] = tg.pad %arg0 {high = array<i64: 0, 0, 0, 5>, low = array<i64: 0, 0, 0, 0>, value = -0.000000e+00 : f64} : tensor<2x8x8x3xf32>
// CHECK: %[[W:.*]] = tg.pad %arg1 {high = array<i64: 4, 0, 0, 5>, low = array<i64: 0, 0, 0, 0>} : tensor<20x3x3x3xf32>
// CHECK: %[[Y:.*]] = tg.conv2d %[[X]], %[[W]] {amp.tensor_core_padded = {input_channels = 3 : i64, output_channels = 20 : i64}} : tensor<2x8x8x8xf32>, tensor<24x3x3x8xf32>
// CHECK: tg.slice %[[Y]] {offsets = array<i64: 0, 0, 0, 0>, sizes = array<i64: 2, 6, 6, 20>} : tensor<2x6x6x24xf32>
func.func @conv(%x: tensor<2x8x8x3xf32> {tg.role = "input"},
                %w: tensor<20x3x3x3xf32> {tg.role = "param"}) -> tensor<2x6x6x20xf32> {
  %y = tg.conv2d %x, %w : tensor<2x8x8x3xf32>, tensor<20x3x3x3xf32>
  return %y : tensor<2x6x6x20xf32>
}

// The backward convolutions, as a user may write them: the filter's
// gradient is sliced back on both channel axes (NCHW: filters OIHW).
// REMARK: remark: amp: padded for Tensor Cores (multiples of 8): input_channels 3 -> 8, output_channels 20 -> 24
// CHECK-LABEL: func.func @conv_backward
// CHECK: tg.conv2d_backward_input {{.*}} {amp.tensor_core_padded = {input_channels = 3 : i64, output_channels = 20 : i64}, layout = "NCHW"} : tensor<2x24x6x6xf32>, tensor<24x8x3x3xf32> -> tensor<2x8x8x8xf32>
// CHECK: tg.slice {{.*}} {offsets = array<i64: 0, 0, 0, 0>, sizes = array<i64: 2, 3, 8, 8>} : tensor<2x8x8x8xf32>
func.func @conv_backward(%dy: tensor<2x20x6x6xf32>,
                         %w: tensor<20x3x3x3xf32> {tg.role = "param"}) -> tensor<2x3x8x8xf32> {
  %dx = tg.conv2d_backward_input %dy, %w {layout = "NCHW"} : tensor<2x20x6x6xf32>, tensor<20x3x3x3xf32> -> tensor<2x3x8x8xf32>
  return %dx : tensor<2x3x8x8xf32>
}

// The filter's gradient (NHWC: filters OHWI) grows on both channel axes
// and is sliced back; a parameter-shaped input owns the input channels.
// REMARK: remark: amp: padded for Tensor Cores (multiples of 8): input_channels 3 -> 8
// CHECK-LABEL: func.func @filter_gradient
// CHECK: %[[X:.*]] = tg.pad %arg0 {high = array<i64: 0, 0, 0, 5>, low = array<i64: 0, 0, 0, 0>, value = -0.000000e+00 : f64} : tensor<2x8x8x3xf32>
// CHECK: %[[DW:.*]] = tg.conv2d_backward_filter %[[X]], %arg1 {amp.tensor_core_padded = {input_channels = 3 : i64}} : tensor<2x8x8x8xf32>, tensor<2x6x6x16xf32> -> tensor<16x3x3x8xf32>
// CHECK: tg.slice %[[DW]] {offsets = array<i64: 0, 0, 0, 0>, sizes = array<i64: 16, 3, 3, 3>} : tensor<16x3x3x8xf32>
func.func @filter_gradient(%x: tensor<2x8x8x3xf32> {tg.role = "param"},
                           %dy: tensor<2x6x6x16xf32>) -> tensor<16x3x3x3xf32> {
  %dw = tg.conv2d_backward_filter %x, %dy : tensor<2x8x8x3xf32>, tensor<2x6x6x16xf32> -> tensor<16x3x3x3xf32>
  return %dw : tensor<16x3x3x3xf32>
}

// Misaligned dimensions no parameter owns are left alone: activations
// (computed values) and the batch.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: tg.pad
// CHECK: tg.matmul %arg0, %{{.*}} : tensor<30x100xf32>, tensor<100x10xf32>
func.func @left_alone(%x: tensor<30x100xf32> {tg.role = "input"},
                      %a: tensor<100x10xf32>) -> tensor<30x10xf32> {
  %h = tg.relu %a : tensor<100x10xf32>
  %y = tg.matmul %x, %h : tensor<30x100xf32>, tensor<100x10xf32>
  return %y : tensor<30x10xf32>
}
// No other contraction is touched.
// REMARK-NOT: remark
