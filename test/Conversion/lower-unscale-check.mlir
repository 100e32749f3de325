// amp.all_finite over amp.unscale results that nothing reads before it
// runs with those unscales as one amprt_unscale_all_finite call (each
// gradient read once); any other shape keeps separate calls, and so does
// every check under fuse-unscale-checks=0.
// RUN: amp-opt %s --amp-lower-to-runtime | FileCheck %s
// RUN: amp-opt %s --amp-lower-to-runtime=fuse-unscale-checks=0 \
// RUN:   | FileCheck %s --check-prefix=APART

// CHECK-LABEL: func.func @fused(
// CHECK-NOT: call @amprt_unscale(
// CHECK: call @amprt_relu(%arg0, %{{.*}}, %[[R:[0-9]+]])
// CHECK-NOT: call @amprt_unscale(
// The f16 gradient is released after the fused call, not at its unscale.
// CHECK-NOT: call @amprt_tensor_release(%[[R]])
// CHECK: call @amprt_unscale_all_finite(%arg0, %{{.*}}, %c2_i32,
// CHECK-NEXT: call @amprt_record_status
// CHECK-NEXT: call @amprt_tensor_release(%[[R]])
// CHECK-NOT: call @amprt_all_finite(
// CHECK-NOT: call @amprt_unscale(
// CHECK: call @amprt_sgd_update(
// CHECK: return
// APART-LABEL: func.func @fused(
// APART-COUNT-2: call @amprt_unscale(
// APART: call @amprt_all_finite(
// APART-NOT: amprt_unscale_all_finite
func.func @fused(%g0: tensor<8xf16>, %g1: tensor<4xf32>, %s: tensor<f32>,
                 %w: tensor<8xf32>, %lr: tensor<f32>)
    -> (tensor<i1>, tensor<8xf32>, tensor<4xf32>) {
  %r = tg.relu %g0 : tensor<8xf16>
  %u0 = amp.unscale %r, %s : tensor<8xf16>
  %u1 = amp.unscale %g1, %s : tensor<4xf32>
  %ok = amp.all_finite %u0, %u1 : tensor<8xf32>, tensor<4xf32>
  %n = tg.sgd_update %w, %u0, %lr : tensor<8xf32>
  return %ok, %n, %u1 : tensor<i1>, tensor<8xf32>, tensor<4xf32>
}

// An unscaled gradient read before the check.
// CHECK-LABEL: func.func @read_before(
// CHECK: call @amprt_unscale(
// CHECK: call @amprt_sgd_update(
// CHECK: call @amprt_all_finite(
// CHECK-NOT: amprt_unscale_all_finite
func.func @read_before(%g: tensor<8xf16>, %s: tensor<f32>, %w: tensor<8xf32>,
                       %lr: tensor<f32>) -> (tensor<i1>, tensor<8xf32>) {
  %u = amp.unscale %g, %s : tensor<8xf16>
  %n = tg.sgd_update %w, %u, %lr : tensor<8xf32>
  %ok = amp.all_finite %u : tensor<8xf32>
  return %ok, %n : tensor<i1>, tensor<8xf32>
}

// Two scales, an operand that is no unscale, an f64 gradient.
// CHECK-LABEL: func.func @kept(
// CHECK-NOT: amprt_unscale_all_finite
// CHECK-COUNT-3: call @amprt_all_finite(
// CHECK-NOT: amprt_unscale_all_finite
func.func @kept(%g: tensor<8xf16>, %s: tensor<f32>, %t: tensor<f32>,
                %x: tensor<8xf32>, %d: tensor<4xf64>)
    -> (tensor<i1>, tensor<i1>, tensor<i1>) {
  %u = amp.unscale %g, %s : tensor<8xf16>
  %v = amp.unscale %g, %t : tensor<8xf16>
  %a = amp.all_finite %u, %v : tensor<8xf32>, tensor<8xf32>
  %w = amp.unscale %g, %s : tensor<8xf16>
  %b = amp.all_finite %w, %x : tensor<8xf32>, tensor<8xf32>
  %e = amp.unscale %d, %s : tensor<4xf64>
  %c = amp.all_finite %e : tensor<4xf64>
  return %a, %b, %c : tensor<i1>, tensor<i1>, tensor<i1>
}
