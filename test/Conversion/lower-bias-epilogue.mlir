// A tg.matmul, or a forward tg.conv2d, read only by a tg.bias_add on its
// channels runs with it as one amprt_matmul_bias / amprt_conv2d_bias call,
// where the bias add is: its result is never made, and its operands live
// until that call. A product with another reader, a bias add on other
// channels or a batched product is lowered as written, and so is every
// pair under fuse-bias-epilogues=0.
// Activation epilogues (lower-activation-epilogue.mlir) are off here.
// RUN: amp-opt %s --amp-lower-to-runtime=fuse-activation-epilogues=0 | FileCheck %s
// RUN: amp-opt %s --amp-lower-to-runtime="fuse-bias-epilogues=0 fuse-activation-epilogues=0" \
// RUN:   | FileCheck %s --check-prefix=APART

// CHECK-LABEL: func.func @dense(
// CHECK: %[[X:.*]] = llvm.load
// CHECK: %[[W:.*]] = llvm.load
// CHECK: %[[B:.*]] = llvm.load
// CHECK: %[[Y:.*]] = call @amprt_tensor_new
// CHECK-NOT: call @amprt_matmul(
// CHECK: call @amprt_matmul_bias(%arg0, %[[X]], %[[W]], %{{.*}}, %{{.*}}, %[[B]], %[[Y]])
// CHECK-NOT: call @amprt_bias_add(
// CHECK: call @amprt_relu(%arg0, %[[Y]]
// CHECK: return
// APART-LABEL: func.func @dense(
// APART: call @amprt_matmul(
// APART: call @amprt_bias_add(
// APART-NOT: amprt_matmul_bias
func.func @dense(%x: tensor<4x8xf32>, %w: tensor<8x3xf32>, %b: tensor<3xf32>)
    -> tensor<4x3xf32> {
  %h = tg.matmul %x, %w : tensor<4x8xf32>, tensor<8x3xf32>
  %z = tg.bias_add %h, %b : tensor<4x3xf32>, tensor<3xf32>
  %y = tg.relu %z : tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}

// The bias is made after the product (the f16 copy of an f32 master bias):
// the call waits for it, and an intermediate the product reads is released
// after the call, not at the product's place.
// CHECK-LABEL: func.func @bias_made_later(
// CHECK: %[[E:.*]] = call @amprt_tensor_new
// CHECK: call @amprt_exp(%arg0, %{{.*}}, %[[E]])
// CHECK: %[[BC:.*]] = call @amprt_tensor_new
// CHECK: call @amprt_cast(%arg0, %{{.*}}, %[[BC]])
// CHECK-NOT: call @amprt_tensor_release(%[[E]])
// CHECK: call @amprt_matmul_bias(%arg0, %[[E]], %{{.*}}, %{{.*}}, %{{.*}}, %[[BC]], %{{.*}})
// CHECK-NEXT: call @amprt_record_status
// CHECK-DAG: call @amprt_tensor_release(%[[E]])
// CHECK-DAG: call @amprt_tensor_release(%[[BC]])
// CHECK: return
func.func @bias_made_later(%x: tensor<4x8xf16>, %w: tensor<8x3xf16>,
                           %b: tensor<3xf32>) -> tensor<4x3xf16> {
  %e = tg.exp %x : tensor<4x8xf16>
  %h = tg.matmul %e, %w : tensor<4x8xf16>, tensor<8x3xf16>
  %bc = amp.cast %b : tensor<3xf32> to tensor<3xf16>
  %z = tg.bias_add %h, %bc : tensor<4x3xf16>, tensor<3xf16>
  return %z : tensor<4x3xf16>
}

// CHECK-LABEL: func.func @conv(
// CHECK-NOT: call @amprt_conv2d(
// CHECK: call @amprt_conv2d_bias(
// CHECK-NOT: call @amprt_bias_add(
// CHECK: return
func.func @conv(%x: tensor<2x5x5x3xf32>, %w: tensor<4x3x3x3xf32>,
                %b: tensor<4xf32>) -> tensor<2x5x5x4xf32> {
  %c = tg.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>}
      : tensor<2x5x5x3xf32>, tensor<4x3x3x3xf32>
  %y = tg.bias_add %c, %b : tensor<2x5x5x4xf32>, tensor<4xf32>
  return %y : tensor<2x5x5x4xf32>
}

// Not fused: the product has a second reader; an NCHW convolution whose
// bias add runs along its last (width) dimension; a batched product.
// CHECK-LABEL: func.func @apart(
// CHECK: call @amprt_matmul(
// CHECK: call @amprt_bias_add(
// CHECK: call @amprt_conv2d(
// CHECK: call @amprt_bias_add(
// CHECK: call @amprt_batch_matmul(
// CHECK: call @amprt_bias_add(
// CHECK-NOT: _bias(
// CHECK: return
func.func @apart(%x: tensor<4x8xf32>, %w: tensor<8x3xf32>, %b: tensor<3xf32>,
                 %cx: tensor<2x3x5x5xf32>, %cw: tensor<4x3x3x3xf32>,
                 %cb: tensor<5xf32>, %bx: tensor<2x4x8xf32>,
                 %bw: tensor<2x8x3xf32>)
    -> (tensor<4x3xf32>, tensor<4x3xf32>, tensor<2x4x5x5xf32>,
        tensor<2x4x3xf32>) {
  %h = tg.matmul %x, %w : tensor<4x8xf32>, tensor<8x3xf32>
  %z = tg.bias_add %h, %b : tensor<4x3xf32>, tensor<3xf32>
  %c = tg.conv2d %cx, %cw {layout = "NCHW", padding = array<i64: 1, 1, 1, 1>}
      : tensor<2x3x5x5xf32>, tensor<4x3x3x3xf32>
  %cy = tg.bias_add %c, %cb : tensor<2x4x5x5xf32>, tensor<5xf32>
  %bh = tg.batch_matmul %bx, %bw : tensor<2x4x8xf32>, tensor<2x8x3xf32>
  %by = tg.bias_add %bh, %b : tensor<2x4x3xf32>, tensor<3xf32>
  return %z, %h, %cy, %by
      : tensor<4x3xf32>, tensor<4x3xf32>, tensor<2x4x5x5xf32>,
        tensor<2x4x3xf32>
}
