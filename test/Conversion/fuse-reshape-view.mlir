// --amp-fuse-for-runtime turns a tg.reshape whose result is not returned
// into amprt.view (no copy); a returned reshape stays, so the caller gets
// a tensor of its own. reshape-views=0 keeps every reshape.
// RUN: amp-opt %s --amp-fuse-for-runtime | FileCheck %s
// RUN: amp-opt %s --amp-fuse-for-runtime=reshape-views=0 \
// RUN:   | FileCheck %s --check-prefix=KEPT

// CHECK-LABEL: func.func @views(
// CHECK: %[[V:.*]] = amprt.view %arg0 : tensor<2x3x4xf16> to tensor<6x4xf16>
// CHECK: %[[W:.*]] = amprt.view %[[V]] : tensor<6x4xf16> to tensor<24xf16>
// CHECK: tg.relu %[[W]]
// CHECK: %[[R:.*]] = tg.reshape %[[V]] : tensor<6x4xf16> -> tensor<4x6xf16>
// CHECK: return %{{.*}}, %[[R]]
// KEPT-LABEL: func.func @views(
// KEPT-NOT: amprt.view
// KEPT-COUNT-3: tg.reshape
func.func @views(%x: tensor<2x3x4xf16>) -> (tensor<24xf16>, tensor<4x6xf16>) {
  %v = tg.reshape %x : tensor<2x3x4xf16> -> tensor<6x4xf16>
  %w = tg.reshape %v : tensor<6x4xf16> -> tensor<24xf16>
  %y = tg.relu %w : tensor<24xf16>
  %r = tg.reshape %v : tensor<6x4xf16> -> tensor<4x6xf16>
  return %y, %r : tensor<24xf16>, tensor<4x6xf16>
}
