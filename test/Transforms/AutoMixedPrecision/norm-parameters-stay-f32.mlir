// A norm between products computes on 16-bit data, but its affine
// parameters and the statistics it saves (and, in its gradient, the
// statistics it reads and the parameter gradients) are not precision data:
// they keep f32 and get no casts.
// RUN: amp-opt %s --amp-auto-mixed-precision | FileCheck %s
// RUN: amp-opt %s --amp-auto-mixed-precision=precision=bf16 | FileCheck %s --check-prefix=BF16

// CHECK-LABEL: func.func @layer_norm
// CHECK-NOT: amp.cast %arg2
// CHECK-NOT: amp.cast %arg3
// CHECK: tg.layer_norm %{{.*}}, %arg2, %arg3 : tensor<16x32xf16>, tensor<32xf32>
// CHECK: return %{{.*}}, %mean : tensor<16x32xf32>, tensor<16xf32>
// BF16-LABEL: func.func @layer_norm
// BF16: tg.layer_norm %{{.*}}, %arg2, %arg3 : tensor<16x32xbf16>, tensor<32xf32>
func.func @layer_norm(%x: tensor<16x32xf32>, %w: tensor<32x32xf32>,
                      %g: tensor<32xf32>, %b: tensor<32xf32>)
    -> (tensor<16x32xf32>, tensor<16xf32>) {
  %h = tg.matmul %x, %w : tensor<16x32xf32>, tensor<32x32xf32>
  %y, %mean, %inv_std = tg.layer_norm %h, %g, %b : tensor<16x32xf32>, tensor<32xf32>
  %o = tg.matmul %y, %w : tensor<16x32xf32>, tensor<32x32xf32>
  return %o, %mean : tensor<16x32xf32>, tensor<16xf32>
}

// CHECK-LABEL: func.func @layer_norm_grad
// CHECK-NOT: amp.cast %arg3
// CHECK-NOT: amp.cast %arg4
// CHECK-NOT: amp.cast %arg5
// CHECK: tg.layer_norm_grad %{{.*}}, %{{.*}}, %arg3, %arg4, %arg5 : tensor<16x32xf16>, tensor<32xf32>, tensor<16xf32>
// CHECK: return %{{.*}}, %dgamma : tensor<16x32xf32>, tensor<32xf32>
func.func @layer_norm_grad(%dy: tensor<16x32xf32>, %x: tensor<16x32xf32>,
                           %w: tensor<32x32xf32>, %g: tensor<32xf32>,
                           %mean: tensor<16xf32>, %inv_std: tensor<16xf32>)
    -> (tensor<16x32xf32>, tensor<32xf32>) {
  %d = tg.matmul %dy, %w : tensor<16x32xf32>, tensor<32x32xf32>
  %dx, %dg, %db = tg.layer_norm_grad %d, %x, %g, %mean, %inv_std : tensor<16x32xf32>, tensor<32xf32>, tensor<16xf32>
  %o = tg.matmul %dx, %w : tensor<16x32xf32>, tensor<32x32xf32>
  return %o, %dg : tensor<16x32xf32>, tensor<32xf32>
}

// CHECK-LABEL: func.func @batch_norm
// CHECK-NOT: amp.cast %arg2
// CHECK: tg.batch_norm %{{.*}}, %arg2, %arg3 : tensor<8x14x14x16xf16>, tensor<16xf32>
// CHECK: return %{{.*}}, %inv_std : tensor<8x14x14x16xf32>, tensor<16xf32>
func.func @batch_norm(%x: tensor<8x14x14x16xf32>, %k: tensor<16x3x3x16xf32>,
                      %s: tensor<16xf32>, %o: tensor<16xf32>)
    -> (tensor<8x14x14x16xf32>, tensor<16xf32>) {
  %c = tg.conv2d %x, %k {padding = array<i64: 1, 1, 1, 1>} : tensor<8x14x14x16xf32>, tensor<16x3x3x16xf32>
  %y, %mean, %inv_std = tg.batch_norm %c, %s, %o : tensor<8x14x14x16xf32>, tensor<16xf32>
  %r = tg.conv2d %y, %k {padding = array<i64: 1, 1, 1, 1>} : tensor<8x14x14x16xf32>, tensor<16x3x3x16xf32>
  return %r, %inv_std : tensor<8x14x14x16xf32>, tensor<16xf32>
}
