// A tg.reshape whose result is not returned makes no copy: its result is a
// view of its input's storage (amprt_tensor_view). The storage is released
// only after the view's last use, the view itself right after its own; an
// op reading a view never writes its result over it, and no op writes over
// a storage that a view still to be read shares. `reshape-views=0` copies
// or moves instead (lower-reshape-moving.mlir).
// RUN: amp-opt %s --amp-lower-to-runtime | FileCheck %s
// RUN: amp-opt %s --amp-lower-to-runtime="reshape-views=0" \
// RUN:   | FileCheck %s --check-prefix=COPY

// %r is read again after the reshape, and its view after that: %r's storage
// lives until the view's last use, and neither the add nor the neg writes
// over it.
// CHECK-LABEL: func.func @view(
// CHECK: %[[X:.*]] = llvm.load
// CHECK: %[[R:.*]] = call @amprt_tensor_new
// CHECK: call @amprt_relu(%{{.*}}, %[[X]], %[[R]])
// CHECK: %[[V:.*]] = call @amprt_tensor_view(%{{.*}}, %[[R]], %{{.*}}, %{{.*}})
// CHECK-NOT: amprt_tensor_release(%[[R]])
// CHECK: %[[T:.*]] = call @amprt_tensor_new
// CHECK: call @amprt_add(%{{.*}}, %[[R]], %[[R]], %[[T]])
// CHECK-NOT: amprt_tensor_release(%[[R]])
// CHECK: %[[N:.*]] = call @amprt_tensor_new
// CHECK: call @amprt_neg(%{{.*}}, %[[V]], %[[N]])
// CHECK-NEXT: call @amprt_record_status
// CHECK-NEXT: call @amprt_tensor_release(%[[R]])
// CHECK-NEXT: call @amprt_tensor_release(%[[V]])
// A step argument is viewed too; only the view is released.
// CHECK: %[[A:.*]] = call @amprt_tensor_view(%{{.*}}, %[[X]], %{{.*}}, %{{.*}})
// CHECK: call @amprt_neg(%{{.*}}, %[[A]], %{{.*}})
// CHECK-NEXT: call @amprt_record_status
// CHECK-NEXT: call @amprt_tensor_release(%[[A]])
// CHECK-NOT: call @amprt_reshape
// CHECK-NOT: amprt_tensor_release(%[[X]])
// CHECK: return
// COPY-LABEL: func.func @view(
// COPY-NOT: amprt_tensor_view
// COPY: call @amprt_reshape(
// COPY: call @amprt_reshape(
func.func @view(%x: tensor<2x3xf32>)
    -> (tensor<2x3xf32>, tensor<6xf32>, tensor<3x2xf32>) {
  %r = tg.relu %x : tensor<2x3xf32>
  %v = tg.reshape %r : tensor<2x3xf32> -> tensor<6xf32>
  %t = tg.add %r, %r : tensor<2x3xf32>
  %n = tg.neg %v : tensor<6xf32>
  %a = tg.reshape %x : tensor<2x3xf32> -> tensor<3x2xf32>
  %b = tg.neg %a : tensor<3x2xf32>
  return %t, %n, %b : tensor<2x3xf32>, tensor<6xf32>, tensor<3x2xf32>
}

// A view of a view shares the first storage: %r lives until %w's last use.
// Where the storage dies with the last view read (the add), the result is
// still a new tensor: the add reads the view.
// CHECK-LABEL: func.func @chain(
// CHECK: %[[R:.*]] = call @amprt_tensor_new
// CHECK: %[[V:.*]] = call @amprt_tensor_view(%{{.*}}, %[[R]],
// CHECK: %[[W:.*]] = call @amprt_tensor_view(%{{.*}}, %[[V]],
// CHECK-NEXT: call @amprt_tensor_release(%[[V]])
// CHECK: %[[S:.*]] = call @amprt_tensor_new
// CHECK: call @amprt_add(%{{.*}}, %[[W]], %[[W]], %[[S]])
// CHECK-NEXT: call @amprt_record_status
// CHECK-NEXT: call @amprt_tensor_release(%[[R]])
// CHECK-NEXT: call @amprt_tensor_release(%[[W]])
func.func @chain(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %r = tg.relu %x : tensor<2x3xf32>
  %v = tg.reshape %r : tensor<2x3xf32> -> tensor<6xf32>
  %w = tg.reshape %v : tensor<6xf32> -> tensor<3x2xf32>
  %s = tg.add %w, %w : tensor<3x2xf32>
  return %s : tensor<3x2xf32>
}

// A view nothing reads is released at once, and its storage with it.
// CHECK-LABEL: func.func @unused(
// CHECK: %[[R:.*]] = call @amprt_tensor_new
// CHECK: %[[V:.*]] = call @amprt_tensor_view(%{{.*}}, %[[R]],
// CHECK-NEXT: call @amprt_tensor_release(%[[R]])
// CHECK-NEXT: call @amprt_tensor_release(%[[V]])
func.func @unused(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = tg.relu %x : tensor<2x3xf32>
  %v = tg.reshape %r : tensor<2x3xf32> -> tensor<6xf32>
  %y = tg.neg %x : tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// A view read only through an f32 -> f16 cast folded into two products
// (the fuzzer's case): the cast shares the view's handle, so the view is
// released after the last product and the storage it views (%r) with it;
// releasing only the view leaked %r's tensor.
// CHECK-LABEL: func.func @view_through_folded_cast(
// CHECK: %[[R:.*]] = call @amprt_tensor_new
// CHECK: call @amprt_relu(%{{.*}}, %{{.*}}, %[[R]])
// CHECK: %[[V:.*]] = call @amprt_tensor_view(%{{.*}}, %[[R]],
// CHECK-NOT: amprt_cast
// CHECK: call @amprt_matmul(%{{.*}}, %[[V]],
// CHECK-NOT: amprt_tensor_release(%[[R]])
// CHECK-NOT: amprt_tensor_release(%[[V]])
// CHECK: call @amprt_matmul(%{{.*}}, %[[V]],
// CHECK-NEXT: call @amprt_record_status
// CHECK-DAG: call @amprt_tensor_release(%[[R]])
// CHECK-DAG: call @amprt_tensor_release(%[[V]])
// CHECK: return
func.func @view_through_folded_cast(%x: tensor<2x3x4xf32>, %w: tensor<12x5xf16>,
                                    %dy: tensor<2x5xf16>)
    -> (tensor<2x5xf16>, tensor<12x5xf16>) {
  %r = tg.relu %x : tensor<2x3x4xf32>
  %v = tg.reshape %r : tensor<2x3x4xf32> -> tensor<2x12xf32>
  %h = amp.cast %v : tensor<2x12xf32> to tensor<2x12xf16>
  %y = tg.matmul %h, %w : tensor<2x12xf16>, tensor<12x5xf16>
  %dw = tg.matmul %h, %dy {transpose_a = true} : tensor<2x12xf16>, tensor<2x5xf16>
  return %y, %dw : tensor<2x5xf16>, tensor<12x5xf16>
}
