// An amp.cast f32 -> f16 read only by products makes no tensor: the
// products take the f32 tensor, which amprt_matmul rounds to f16 as it
// stages it (the cast's bits), and the f32 tensor lives until the last
// of them. Casts with another user, or to bf16, are lowered as written.
// RUN: amp-opt %s --amp-lower-to-runtime | FileCheck %s
// RUN: amp-opt %s --amp-lower-to-runtime=fold-casts-into-products=0 \
// RUN:   | FileCheck %s --check-prefix=KEPT

// A weight cast once for two products.
// CHECK-LABEL: func.func @weight(
// CHECK-NOT: amprt_cast
// CHECK: %[[SLOT:.*]] = llvm.getelementptr %arg1[1]
// CHECK: %[[W:.*]] = llvm.load %[[SLOT]]
// CHECK: call @amprt_matmul(%arg0, %{{.*}}, %[[W]],
// CHECK: call @amprt_batch_matmul
// CHECK-NOT: amprt_cast
// CHECK: call @amprt_matmul(%arg0, %{{.*}}, %[[W]],
// CHECK-NOT: amprt_cast
// CHECK: return
// KEPT-LABEL: func.func @weight(
// KEPT-COUNT-1: call @amprt_cast(
// KEPT-LABEL: func.func @intermediate(
func.func @weight(%x: tensor<4x8xf16>, %w: tensor<8x8xf32>,
                  %bx: tensor<2x4x8xf16>, %bw: tensor<2x8x8xf16>)
    -> (tensor<4x8xf16>, tensor<2x4x8xf16>, tensor<4x8xf16>) {
  %wh = amp.cast %w : tensor<8x8xf32> to tensor<8x8xf16>
  %y = tg.matmul %x, %wh : tensor<4x8xf16>, tensor<8x8xf16>
  %b = tg.batch_matmul %bx, %bw : tensor<2x4x8xf16>, tensor<2x8x8xf16>
  %z = tg.matmul %y, %wh {transpose_b = true} : tensor<4x8xf16>, tensor<8x8xf16>
  return %y, %b, %z : tensor<4x8xf16>, tensor<2x4x8xf16>, tensor<4x8xf16>
}

// An f32 intermediate read through a folded cast is released after the
// product that reads it, not after the cast.
// CHECK-LABEL: func.func @intermediate(
// CHECK: %[[R:.*]] = call @amprt_tensor_new
// CHECK: call @amprt_relu(%arg0, %{{.*}}, %[[R]])
// CHECK-NOT: amprt_tensor_release(%[[R]])
// CHECK-NOT: amprt_cast
// CHECK: call @amprt_matmul(%arg0, %[[R]],
// CHECK-NEXT: call @amprt_record_status
// CHECK-NEXT: call @amprt_tensor_release(%[[R]])
func.func @intermediate(%a: tensor<4x8xf32>, %b: tensor<8x2xf16>)
    -> tensor<4x2xf16> {
  %r = tg.relu %a : tensor<4x8xf32>
  %rh = amp.cast %r : tensor<4x8xf32> to tensor<4x8xf16>
  %p = tg.matmul %rh, %b : tensor<4x8xf16>, tensor<8x2xf16>
  return %p : tensor<4x2xf16>
}

// A cast that something other than a product reads, and one to bf16.
// CHECK-LABEL: func.func @kept(
// CHECK: call @amprt_cast(
// CHECK: call @amprt_cast(
// CHECK: call @amprt_matmul(
// CHECK: call @amprt_add(
// CHECK: call @amprt_matmul(
func.func @kept(%w: tensor<8x8xf32>, %x: tensor<4x8xf16>,
                %xb: tensor<4x8xbf16>)
    -> (tensor<4x8xf16>, tensor<8x8xf16>, tensor<4x8xbf16>) {
  %wh = amp.cast %w : tensor<8x8xf32> to tensor<8x8xf16>
  %wb = amp.cast %w : tensor<8x8xf32> to tensor<8x8xbf16>
  %y = tg.matmul %x, %wh : tensor<4x8xf16>, tensor<8x8xf16>
  %s = tg.add %wh, %wh : tensor<8x8xf16>
  %yb = tg.matmul %xb, %wb : tensor<4x8xbf16>, tensor<8x8xbf16>
  return %y, %s, %yb : tensor<4x8xf16>, tensor<8x8xf16>, tensor<4x8xbf16>
}
