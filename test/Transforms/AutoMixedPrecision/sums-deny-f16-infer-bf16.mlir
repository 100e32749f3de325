// Sums and means overflow f16's range, so they are deny for f16 and keep
// f32; bf16 has f32's range, so there they are infer and stay in bf16
// between products.
// RUN: amp-opt %s --amp-auto-mixed-precision | FileCheck %s --check-prefix=F16
// RUN: amp-opt %s --amp-auto-mixed-precision=precision=bf16 | FileCheck %s --check-prefix=BF16

// F16-LABEL: func.func @sum_between_products
// F16: tg.reduce_sum %{{.*}} : tensor<4x16x32xf32>
// F16: tg.reduce_mean %{{.*}} : tensor<4x16x32xf32>
// BF16-LABEL: func.func @sum_between_products
// BF16: tg.reduce_sum %{{.*}} : tensor<4x16x32xbf16>
// BF16: tg.reduce_mean %{{.*}} : tensor<4x16x32xbf16>
// BF16-NOT: amp.cast {{.*}} to tensor<16x32xf32>
// BF16: tg.matmul %{{.*}} : tensor<16x32xbf16>, tensor<32x32xbf16>
func.func @sum_between_products(%x: tensor<4x16x32xf32>, %y: tensor<4x32x32xf32>,
                                %w: tensor<32x32xf32>) -> tensor<16x32xf32> {
  %p = tg.batch_matmul %x, %y : tensor<4x16x32xf32>, tensor<4x32x32xf32>
  %s = tg.reduce_sum %p {dims = array<i64: 0>} : tensor<4x16x32xf32>
  %m = tg.reduce_mean %p {dims = array<i64: 0>} : tensor<4x16x32xf32>
  %a = tg.add %s, %m : tensor<16x32xf32>
  %o = tg.matmul %a, %w : tensor<16x32xf32>, tensor<32x32xf32>
  return %o : tensor<16x32xf32>
}
