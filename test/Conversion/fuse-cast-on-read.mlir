// --amp-fuse-for-runtime turns an amp.cast that its readers can make as
// they read into amprt.cast_on_read: f32 -> f16 read only as product
// operands (a product's own or its epilogue's), f16/bf16 -> f32 read only
// by tg.bias_add_grad. Any other reader, direction or an unused cast
// keeps the amp.cast; each direction has its option.
// RUN: amp-opt %s --amp-fuse-for-runtime | FileCheck %s
// RUN: amp-opt %s --amp-fuse-for-runtime=fold-casts-into-products=0 \
// RUN:   | FileCheck %s --check-prefix=NOPRODUCTS
// RUN: amp-opt %s --amp-fuse-for-runtime=fold-casts-into-bias-grads=0 \
// RUN:   | FileCheck %s --check-prefix=NOBIASGRADS

// CHECK-LABEL: func.func @into_products(
// CHECK: %[[H:.*]] = amprt.cast_on_read %arg1 : tensor<8x8xf32> to tensor<8x8xf16>
// CHECK: tg.matmul %arg0, %[[H]]
// CHECK: amprt.product_epilogue(%{{.*}}, %[[H]], %{{.*}})
// CHECK-NOT: amp.cast
// NOPRODUCTS-LABEL: func.func @into_products(
// NOPRODUCTS: amp.cast %arg1
// NOPRODUCTS-NOT: amprt.cast_on_read
// NOPRODUCTS-LABEL: func.func @into_bias_grad(
// NOPRODUCTS: amprt.cast_on_read %arg0
func.func @into_products(%x: tensor<4x8xf16>, %w: tensor<8x8xf32>,
                         %b: tensor<8xf16>)
    -> (tensor<4x8xf16>, tensor<4x8xf16>) {
  %wh = amp.cast %w : tensor<8x8xf32> to tensor<8x8xf16>
  %y = tg.matmul %x, %wh : tensor<4x8xf16>, tensor<8x8xf16>
  %z = tg.matmul %y, %wh {transpose_b = true} : tensor<4x8xf16>, tensor<8x8xf16>
  %zb = tg.bias_add %z, %b : tensor<4x8xf16>, tensor<8xf16>
  return %y, %zb : tensor<4x8xf16>, tensor<4x8xf16>
}

// CHECK-LABEL: func.func @into_bias_grad(
// CHECK: %[[W:.*]] = amprt.cast_on_read %arg0 : tensor<4x8xbf16> to tensor<4x8xf32>
// CHECK: tg.bias_add_grad %[[W]]
// NOBIASGRADS-LABEL: func.func @into_bias_grad(
// NOBIASGRADS: amp.cast %arg0
// NOBIASGRADS-NOT: amprt.cast_on_read
func.func @into_bias_grad(%dy: tensor<4x8xbf16>) -> tensor<8xf32> {
  %w = amp.cast %dy : tensor<4x8xbf16> to tensor<4x8xf32>
  %db = tg.bias_add_grad %w : tensor<4x8xf32>
  return %db : tensor<8xf32>
}

// A cast with another reader, a cast to bf16 and an unused cast stay as
// written.
// CHECK-LABEL: func.func @kept(
// CHECK-NOT: amprt.cast_on_read
// CHECK-COUNT-3: amp.cast
// CHECK-NOT: amprt.cast_on_read
func.func @kept(%x: tensor<4x8xf16>, %w: tensor<8x8xf32>, %v: tensor<8x8xf32>,
                %xb: tensor<4x8xbf16>)
    -> (tensor<4x8xf16>, tensor<8x8xf16>, tensor<4x8xbf16>) {
  %wh = amp.cast %w : tensor<8x8xf32> to tensor<8x8xf16>
  %y = tg.matmul %x, %wh : tensor<4x8xf16>, tensor<8x8xf16>
  %vb = amp.cast %v : tensor<8x8xf32> to tensor<8x8xbf16>
  %yb = tg.matmul %xb, %vb : tensor<4x8xbf16>, tensor<8x8xbf16>
  %unused = amp.cast %v : tensor<8x8xf32> to tensor<8x8xf16>
  return %y, %wh, %yb : tensor<4x8xf16>, tensor<8x8xf16>, tensor<4x8xbf16>
}
