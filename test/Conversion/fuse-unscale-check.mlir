// --amp-fuse-for-runtime turns an amp.all_finite of amp.unscale results
// (distinct, one scale, f16/bf16/f32 gradients, none read before the
// check) into one amprt.unscale_all_finite; later readers of the unscaled
// gradients read its results. Any other shape stays as written, and so
// does every check under fuse-unscale-checks=0.
// RUN: amp-opt %s --amp-fuse-for-runtime | FileCheck %s
// RUN: amp-opt %s --amp-fuse-for-runtime=fuse-unscale-checks=0 \
// RUN:   | FileCheck %s --check-prefix=KEPT

// CHECK-LABEL: func.func @fused(
// CHECK-NOT: amp.unscale
// CHECK: %[[U:.*]]:2, %[[OK:.*]] = amprt.unscale_all_finite %{{.*}}, %arg1 scale %arg2 : (tensor<8xf16>, tensor<4xf32>) -> (tensor<8xf32>, tensor<4xf32>, tensor<i1>)
// CHECK-NOT: amp.all_finite
// CHECK: tg.sgd_update %arg3, %[[U]]#0, %arg4
// CHECK: return %[[OK]], %{{.*}}, %[[U]]#1
// KEPT-LABEL: func.func @fused(
// KEPT-NOT: amprt.unscale_all_finite
// KEPT: amp.all_finite
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

// Read before the check; two scales; the same unscale twice; an f64
// gradient.
// CHECK-LABEL: func.func @kept(
// CHECK-NOT: amprt.unscale_all_finite
// CHECK-COUNT-4: amp.all_finite
// CHECK-NOT: amprt.unscale_all_finite
func.func @kept(%g: tensor<8xf16>, %s: tensor<f32>, %t: tensor<f32>,
                %w: tensor<8xf32>, %lr: tensor<f32>, %d: tensor<4xf64>)
    -> (tensor<i1>, tensor<i1>, tensor<i1>, tensor<i1>, tensor<8xf32>) {
  %u = amp.unscale %g, %s : tensor<8xf16>
  %n = tg.sgd_update %w, %u, %lr : tensor<8xf32>
  %a = amp.all_finite %u : tensor<8xf32>
  %v = amp.unscale %g, %s : tensor<8xf16>
  %x = amp.unscale %g, %t : tensor<8xf16>
  %b = amp.all_finite %v, %x : tensor<8xf32>, tensor<8xf32>
  %y = amp.unscale %g, %s : tensor<8xf16>
  %c = amp.all_finite %y, %y : tensor<8xf32>, tensor<8xf32>
  %e = amp.unscale %d, %s : tensor<4xf64>
  %f = amp.all_finite %e : tensor<4xf64>
  return %a, %b, %c, %f, %n : tensor<i1>, tensor<i1>, tensor<i1>, tensor<i1>, tensor<8xf32>
}
