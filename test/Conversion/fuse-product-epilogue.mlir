// --amp-fuse-for-runtime runs a tg.matmul or forward tg.conv2d with the
// tg.bias_add that is its only reader (along its channels) and the first
// activation of that, read by nothing before it, as one
// amprt.product_epilogue at the last one's place. When the activation's
// input is read later, the op yields it too. Each part has its option:
// without activations a bias add still fuses; without bias adds an
// activation fuses only where it reads the product itself.
// RUN: amp-opt %s --amp-fuse-for-runtime | FileCheck %s
// RUN: amp-opt %s --amp-fuse-for-runtime=fuse-activation-epilogues=0 \
// RUN:   | FileCheck %s --check-prefix=NOACT
// RUN: amp-opt %s --amp-fuse-for-runtime=fuse-bias-epilogues=0 \
// RUN:   | FileCheck %s --check-prefix=NOBIAS

// CHECK-LABEL: func.func @dense_gelu(
// CHECK: %[[E:.*]]:2 = amprt.product_epilogue(%arg0, %arg1, %arg2) : (tensor<4x8xf32>, tensor<8x3xf32>, tensor<3xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>) {
// CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8x3xf32>, %[[C:.*]]: tensor<3xf32>):
// CHECK-NEXT: %[[H:.*]] = tg.matmul %[[A]], %[[B]]
// CHECK-NEXT: %[[Z:.*]] = tg.bias_add %[[H]], %[[C]]
// CHECK-NEXT: %[[G:.*]] = tg.gelu %[[Z]]
// CHECK-NEXT: amprt.yield %[[G]], %[[Z]]
// CHECK: tg.exp %[[E]]#0
// CHECK: tg.gelu_grad %arg3, %[[E]]#1
// NOACT-LABEL: func.func @dense_gelu(
// NOACT: %[[E:[0-9]+]] = amprt.product_epilogue(%arg0, %arg1, %arg2) {{.*}} -> tensor<4x3xf32>
// The gelu left out runs in a chain with the exp.
// NOACT: amprt.elementwise_chain(%[[E]])
// NOACT: tg.gelu
// NOBIAS-LABEL: func.func @dense_gelu(
// NOBIAS-NOT: amprt.product_epilogue
func.func @dense_gelu(%x: tensor<4x8xf32>, %w: tensor<8x3xf32>,
                      %b: tensor<3xf32>, %dy: tensor<4x3xf32>)
    -> (tensor<4x3xf32>, tensor<4x3xf32>) {
  %h = tg.matmul %x, %w : tensor<4x8xf32>, tensor<8x3xf32>
  %z = tg.bias_add %h, %b : tensor<4x3xf32>, tensor<3xf32>
  %g = tg.gelu %z : tensor<4x3xf32>
  %e = tg.exp %g : tensor<4x3xf32>
  %dz = tg.gelu_grad %dy, %z : tensor<4x3xf32>
  return %e, %dz : tensor<4x3xf32>, tensor<4x3xf32>
}

// A convolution's activation without a bias, the bias made after the
// product (the op goes where the last of them is).
// CHECK-LABEL: func.func @conv_relu(
// CHECK: amprt.product_epilogue(%arg0, %arg1) {{.*}} -> tensor<1x4x4x3xf16>
// CHECK: tg.conv2d
// CHECK-NEXT: tg.relu
// CHECK: %[[BIAS:.*]] = amp.cast %arg2
// CHECK: amprt.product_epilogue(%arg0, %arg1, %[[BIAS]])
// NOBIAS-LABEL: func.func @conv_relu(
// NOBIAS: amprt.product_epilogue(%arg0, %arg1)
// NOBIAS: tg.bias_add
func.func @conv_relu(%x: tensor<1x4x4x2xf16>, %w: tensor<3x1x1x2xf16>,
                     %b: tensor<3xf32>)
    -> (tensor<1x4x4x3xf16>, tensor<1x4x4x3xf16>) {
  %h = tg.conv2d %x, %w : tensor<1x4x4x2xf16>, tensor<3x1x1x2xf16>
  %r = tg.relu %h : tensor<1x4x4x3xf16>
  %k = tg.conv2d %x, %w : tensor<1x4x4x2xf16>, tensor<3x1x1x2xf16>
  %bh = amp.cast %b : tensor<3xf32> to tensor<3xf16>
  %z = tg.bias_add %k, %bh : tensor<1x4x4x3xf16>, tensor<3xf16>
  return %r, %z : tensor<1x4x4x3xf16>, tensor<1x4x4x3xf16>
}

// An activation whose input is read before it, a product read twice, and
// a batched product stay as written.
// CHECK-LABEL: func.func @kept(
// CHECK-NOT: amprt.product_epilogue
// CHECK: return
func.func @kept(%x: tensor<4x8xf32>, %w: tensor<8x3xf32>, %b: tensor<3xf32>,
                %bx: tensor<2x4x8xf32>, %bw: tensor<2x8x3xf32>)
    -> (tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>,
        tensor<2x4x3xf32>) {
  %h = tg.matmul %x, %w : tensor<4x8xf32>, tensor<8x3xf32>
  %e = tg.exp %h : tensor<4x3xf32>
  %r = tg.relu %h : tensor<4x3xf32>
  %k = tg.matmul %x, %w : tensor<4x8xf32>, tensor<8x3xf32>
  %z = tg.bias_add %k, %b : tensor<4x3xf32>, tensor<3xf32>
  %bm = tg.batch_matmul %bx, %bw : tensor<2x4x8xf32>, tensor<2x8x3xf32>
  %br = tg.relu %bm : tensor<2x4x3xf32>
  return %e, %r, %k, %z, %br : tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<2x4x3xf32>
}
