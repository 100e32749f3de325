// Round trip of every amp op and the amp discardable attributes.
// RUN: amp-opt %s | amp-opt | FileCheck %s
// RUN: amp-opt %s --mlir-print-op-generic | amp-opt | FileCheck %s
// RUN: amp-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @casts
func.func @casts(%w: tensor<784x128xf32>, %h: tensor<4xf16>) {
  // CHECK: amp.cast %{{.*}} : tensor<784x128xf32> to tensor<784x128xf16>
  // GENERIC: "amp.cast"(%{{.*}}) : (tensor<784x128xf32>) -> tensor<784x128xf16>
  %a = amp.cast %w : tensor<784x128xf32> to tensor<784x128xf16>
  // CHECK: amp.cast %{{.*}} : tensor<784x128xf32> to tensor<784x128xbf16>
  %b = amp.cast %w : tensor<784x128xf32> to tensor<784x128xbf16>
  // CHECK: amp.cast %{{.*}} : tensor<4xf16> to tensor<4xf64>
  %c = amp.cast %h : tensor<4xf16> to tensor<4xf64>
  return
}

// CHECK-LABEL: func.func @loss_scaling
func.func @loss_scaling(%seed: tensor<f32>, %s: tensor<f32>, %n: tensor<i64>,
                        %g: tensor<784x128xf16>, %gb: tensor<128xf32>) {
  // CHECK: amp.scale %{{.*}}, %{{.*}} : tensor<f32>
  // GENERIC: "amp.scale"(%{{.*}}, %{{.*}}) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %scaled = amp.scale %seed, %s : tensor<f32>
  // CHECK: %[[U:.*]] = amp.unscale %{{.*}}, %{{.*}} : tensor<784x128xf16>
  // GENERIC: "amp.unscale"(%{{.*}}, %{{.*}}) : (tensor<784x128xf16>, tensor<f32>) -> tensor<784x128xf32>
  %u = amp.unscale %g, %s : tensor<784x128xf16>
  // CHECK: %[[OK:.*]] = amp.all_finite %[[U]], %{{.*}} : tensor<784x128xf32>, tensor<128xf32>
  // GENERIC: "amp.all_finite"{{.*}} -> tensor<i1>
  %ok = amp.all_finite %u, %gb : tensor<784x128xf32>, tensor<128xf32>
  // CHECK: amp.update_scale %{{.*}}, %{{.*}}, %[[OK]]{{$}}
  // GENERIC: "amp.update_scale"{{.*}} : (tensor<f32>, tensor<i64>, tensor<i1>) -> (tensor<f32>, tensor<i64>)
  %s2, %n2 = amp.update_scale %s, %n, %ok
  // CHECK: amp.update_scale %{{.*}}, %{{.*}}, %[[OK]] {backoff_factor = 2.500000e-01 : f64, growth_factor = 4.000000e+00 : f64, growth_interval = 100 : i64, max_scale = 6.553600e+04 : f64, min_scale = 2.000000e+00 : f64}
  %s3, %n3 = amp.update_scale %s, %n, %ok {growth_factor = 4.0 : f64, backoff_factor = 0.25 : f64, growth_interval = 100 : i64, min_scale = 2.0 : f64, max_scale = 65536.0 : f64}
  return
}

// CHECK-LABEL: func.func @attributes
func.func @attributes(%x: tensor<4x4xf32>) {
  // CHECK: tg.matmul {{.*}} {amp.color = "allow", amp.precision = "bf16"}
  %m = tg.matmul %x, %x {amp.precision = "bf16", amp.color = "allow"} : tensor<4x4xf32>
  // CHECK: tg.exp {{.*}} {amp.color = "deny"}
  %e = tg.exp %m {amp.color = "deny"} : tensor<4x4xf32>
  return
}

// Ranked tensors with dynamic dimensions, as other front ends emit them.
// CHECK-LABEL: func.func @dynamic_shapes
func.func @dynamic_shapes(%x: tensor<?x784xf32>, %g: tensor<?x?xf16>, %s: tensor<f32>) {
  // CHECK: amp.cast %{{.*}} : tensor<?x784xf32> to tensor<?x784xf16>
  // GENERIC: "amp.cast"(%{{.*}}) : (tensor<?x784xf32>) -> tensor<?x784xf16>
  %h = amp.cast %x : tensor<?x784xf32> to tensor<?x784xf16>
  // CHECK: amp.scale %{{.*}}, %{{.*}} : tensor<?x784xf16>
  %sc = amp.scale %h, %s : tensor<?x784xf16>
  // GENERIC: "amp.unscale"(%{{.*}}, %{{.*}}) : (tensor<?x?xf16>, tensor<f32>) -> tensor<?x?xf32>
  %u = amp.unscale %g, %s : tensor<?x?xf16>
  // CHECK: amp.all_finite %{{.*}}, %{{.*}} : tensor<?x?xf32>, tensor<?x784xf16>
  %ok = amp.all_finite %u, %sc : tensor<?x?xf32>, tensor<?x784xf16>
  return
}

// The validation probe and the amp.probe result attribute.
// CHECK-LABEL: func.func @numeric_error
// CHECK-SAME: -> (tensor<10xf32> {amp.probe = {id = 0 : i64, kind = "result", op = "tg.matmul"}, tg.role = "output"})
func.func @numeric_error(%r: tensor<?x10xf32>, %c: tensor<?x10xbf16>)
    -> (tensor<10xf32> {amp.probe = {kind = "result", id = 0 : i64, op = "tg.matmul"}, tg.role = "output"}) {
  // CHECK: amp.numeric_error %{{.*}}, %{{.*}} : tensor<?x10xf32>, tensor<?x10xbf16> -> tensor<10xf32>
  // GENERIC: "amp.numeric_error"(%{{.*}}, %{{.*}}) : (tensor<?x10xf32>, tensor<?x10xbf16>) -> tensor<10xf32>
  %s = amp.numeric_error %r, %c : tensor<?x10xf32>, tensor<?x10xbf16> -> tensor<10xf32>
  return %s : tensor<10xf32>
}
