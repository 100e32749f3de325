// An activation that reads a tg.matmul or a forward tg.conv2d (or the bias
// add fused into it) runs in that product's call,
// amprt_matmul_bias_act / amprt_conv2d_bias_act, at the activation's
// place: the product and bias results are never made. When the
// activation's input is read again later (gelu's gradient reads it), the
// call writes it too (`pre`); otherwise `pre` is null. An input read
// before the activation, a batched product, and every activation under
// fuse-activation-epilogues=0 are lowered apart.
// RUN: amp-opt %s --amp-lower-to-runtime | FileCheck %s
// RUN: amp-opt %s --amp-lower-to-runtime=fuse-activation-epilogues=0 \
// RUN:   | FileCheck %s --check-prefix=APART

// CHECK-LABEL: func.func @dense_relu(
// CHECK: %[[X:.*]] = llvm.load
// CHECK: %[[W:.*]] = llvm.load
// CHECK: %[[B:.*]] = llvm.load
// CHECK: %[[Y:.*]] = call @amprt_tensor_new
// CHECK: %[[NOPRE:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: %[[RELU:.*]] = arith.constant 0 : i32
// CHECK: call @amprt_matmul_bias_act(%arg0, %[[X]], %[[W]], %{{.*}}, %{{.*}}, %[[B]], %[[RELU]], %{{.*}}, %[[NOPRE]], %[[Y]])
// CHECK-NOT: call @amprt_matmul
// CHECK-NOT: call @amprt_bias_add(
// CHECK-NOT: call @amprt_relu(
// CHECK: return
// APART-LABEL: func.func @dense_relu(
// APART: call @amprt_matmul_bias(
// APART: call @amprt_relu(
// APART-NOT: _act(
func.func @dense_relu(%x: tensor<4x8xf16>, %w: tensor<8x3xf16>,
                      %b: tensor<3xf16>) -> tensor<4x3xf16> {
  %h = tg.matmul %x, %w : tensor<4x8xf16>, tensor<8x3xf16>
  %z = tg.bias_add %h, %b : tensor<4x3xf16>, tensor<3xf16>
  %y = tg.relu %z : tensor<4x3xf16>
  return %y : tensor<4x3xf16>
}

// gelu's gradient reads gelu's input: the call writes it into `pre`, which
// lives until the gradient, dying there, writes its result over it.
// CHECK-LABEL: func.func @gelu_kept_for_its_gradient(
// CHECK: %[[Y:.*]] = call @amprt_tensor_new
// CHECK: %[[PRE:.*]] = call @amprt_tensor_new
// CHECK: %[[GELU:.*]] = arith.constant 1 : i32
// CHECK: call @amprt_matmul_bias_act(%arg0, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[GELU]], %{{.*}}, %[[PRE]], %[[Y]])
// CHECK-NOT: call @amprt_tensor_release(%[[PRE]])
// CHECK: call @amprt_gelu_grad(%arg0, %{{.*}}, %[[PRE]], %[[PRE]])
// CHECK: return
func.func @gelu_kept_for_its_gradient(%x: tensor<4x8xf32>, %w: tensor<8x3xf32>,
                                      %b: tensor<3xf32>, %dy: tensor<4x3xf32>)
    -> (tensor<4x3xf32>, tensor<4x3xf32>) {
  %h = tg.matmul %x, %w : tensor<4x8xf32>, tensor<8x3xf32>
  %z = tg.bias_add %h, %b : tensor<4x3xf32>, tensor<3xf32>
  %y = tg.gelu %z : tensor<4x3xf32>
  %e = tg.exp %y : tensor<4x3xf32>
  %dz = tg.gelu_grad %dy, %z : tensor<4x3xf32>
  return %e, %dz : tensor<4x3xf32>, tensor<4x3xf32>
}

// No bias: the product alone, its bias argument null; leaky relu passes
// its slope.
// CHECK-LABEL: func.func @leaky_without_bias(
// CHECK: %[[NOBIAS:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: %[[LEAKY:.*]] = arith.constant 5 : i32
// CHECK: %[[SLOPE:.*]] = arith.constant 2.500000e-01 : f64
// CHECK: call @amprt_matmul_bias_act(%arg0, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[NOBIAS]], %[[LEAKY]], %[[SLOPE]], %{{.*}}, %{{.*}})
// CHECK-NOT: call @amprt_leaky_relu(
// CHECK: return
func.func @leaky_without_bias(%x: tensor<4x8xbf16>, %w: tensor<3x8xbf16>)
    -> tensor<4x3xbf16> {
  %h = tg.matmul %x, %w {transpose_b = true}
      : tensor<4x8xbf16>, tensor<3x8xbf16>
  %y = tg.leaky_relu %h {alpha = 2.500000e-01 : f64} : tensor<4x3xbf16>
  return %y : tensor<4x3xbf16>
}

// CHECK-LABEL: func.func @conv_relu(
// CHECK: call @amprt_conv2d_bias_act(
// CHECK-NOT: call @amprt_conv2d
// CHECK-NOT: call @amprt_relu(
// CHECK: return
// APART-LABEL: func.func @conv_relu(
// APART: call @amprt_conv2d_bias(
// APART: call @amprt_relu(
func.func @conv_relu(%x: tensor<2x5x5x3xf32>, %w: tensor<4x3x3x3xf32>,
                     %b: tensor<4xf32>) -> tensor<2x5x5x4xf32> {
  %c = tg.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>}
      : tensor<2x5x5x3xf32>, tensor<4x3x3x3xf32>
  %z = tg.bias_add %c, %b : tensor<2x5x5x4xf32>, tensor<4xf32>
  %y = tg.relu %z : tensor<2x5x5x4xf32>
  return %y : tensor<2x5x5x4xf32>
}

// Apart: the biased product is read (by the exp) before the tanh runs; a
// batched product has no activation epilogue.
// CHECK-LABEL: func.func @apart(
// CHECK: call @amprt_matmul_bias(
// CHECK: call @amprt_exp(
// CHECK: call @amprt_tanh(
// CHECK: call @amprt_batch_matmul(
// CHECK: call @amprt_sigmoid(
// CHECK-NOT: _act(
// CHECK: return
func.func @apart(%x: tensor<4x8xf32>, %w: tensor<8x3xf32>, %b: tensor<3xf32>,
                 %bx: tensor<2x4x8xf32>, %bw: tensor<2x8x3xf32>)
    -> (tensor<4x3xf32>, tensor<4x3xf32>, tensor<2x4x3xf32>) {
  %h = tg.matmul %x, %w : tensor<4x8xf32>, tensor<8x3xf32>
  %z = tg.bias_add %h, %b : tensor<4x3xf32>, tensor<3xf32>
  %e = tg.exp %z : tensor<4x3xf32>
  %t = tg.tanh %z : tensor<4x3xf32>
  %bh = tg.batch_matmul %bx, %bw : tensor<2x4x8xf32>, tensor<2x8x3xf32>
  %bs = tg.sigmoid %bh : tensor<2x4x3xf32>
  return %e, %t, %bs : tensor<4x3xf32>, tensor<4x3xf32>, tensor<2x4x3xf32>
}
