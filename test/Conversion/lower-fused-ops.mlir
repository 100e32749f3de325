// amprt ops written by hand (or by another compiler's fusion) lower to
// their runtime calls as --amp-fuse-for-runtime's do: each region op is
// one call, a cast on read is its input's tensor, a view is
// amprt_tensor_view and is released after its last read. The lowering's
// own fusions still apply around them (here the f32 -> f16 cast of the
// view becomes a cast on read: the product reads the view). A step may
// not return a view.
// RUN: amp-opt %s -split-input-file --amp-lower-to-runtime -verify-diagnostics \
// RUN:   | FileCheck %s

// CHECK-LABEL: func.func @by_hand(
// CHECK: %[[X:.*]] = llvm.load
// CHECK: %[[W:.*]] = llvm.load
// CHECK: %[[V:.*]] = call @amprt_tensor_view(%arg0, %[[X]],
// CHECK: %[[Y:.*]] = call @amprt_tensor_new
// CHECK: call @amprt_matmul_bias_act(%arg0, %[[V]], %[[W]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[Y]])
// CHECK-NEXT: call @amprt_record_status
// CHECK-NEXT: call @amprt_tensor_release(%[[V]])
// CHECK: %[[YF:.*]] = call @amprt_tensor_new
// CHECK: call @amprt_cast(%arg0, %[[Y]], %[[YF]])
// CHECK: call @amprt_tensor_release(%[[Y]])
// CHECK: call @amprt_elementwise_chain(%arg0, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[YF]])
// CHECK-NOT: call @amprt_tanh(
// CHECK: return
func.func @by_hand(%x: tensor<2x2x8xf32>, %w: tensor<8x3xf32>)
    -> tensor<4x3xf32> {
  %v = amprt.view %x : tensor<2x2x8xf32> to tensor<4x8xf32>
  %wh = amprt.cast_on_read %w : tensor<8x3xf32> to tensor<8x3xf16>
  %xh = amp.cast %v : tensor<4x8xf32> to tensor<4x8xf16>
  %y = amprt.product_epilogue (%xh, %wh)
      : (tensor<4x8xf16>, tensor<8x3xf16>) -> tensor<4x3xf16> {
  ^bb0(%a: tensor<4x8xf16>, %b: tensor<8x3xf16>):
    %h = tg.matmul %a, %b : tensor<4x8xf16>, tensor<8x3xf16>
    %r = tg.relu %h : tensor<4x3xf16>
    amprt.yield %r : tensor<4x3xf16>
  }
  %yf = amp.cast %y : tensor<4x3xf16> to tensor<4x3xf32>
  %z = amprt.elementwise_chain (%yf) : (tensor<4x3xf32>) -> tensor<4x3xf32> {
  ^bb0(%a: tensor<4x3xf32>):
    %0 = tg.tanh %a : tensor<4x3xf32>
    %1 = tg.neg %0 : tensor<4x3xf32>
    amprt.yield %1 : tensor<4x3xf32>
  }
  return %z : tensor<4x3xf32>
}

// -----

func.func @returned_view(%x: tensor<2x4xf32>) -> tensor<8xf32> {
  %v = amprt.view %x : tensor<2x4xf32> to tensor<8xf32>
  // expected-error @+1 {{amp-lower-to-runtime: a step may not return an amprt.view (its caller owns what it returns): return a tg.reshape}}
  return %v : tensor<8xf32>
}
