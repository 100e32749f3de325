// pow -> bias_add -> relu has no allow op: everything stays f32.
// RUN: amp-opt %s --amp-auto-mixed-precision | FileCheck %s
// RUN: amp-opt %s --amp-auto-mixed-precision=precision=bf16 | FileCheck %s

// CHECK-LABEL: func.func @pow_bias_relu
// CHECK: tg.pow {{.*}} : tensor<32x32xf32>
// CHECK: tg.bias_add {{.*}} : tensor<32x32xf32>, tensor<32xf32>
// CHECK: tg.relu {{.*}} : tensor<32x32xf32>
// CHECK-NOT: amp.cast
func.func @pow_bias_relu(%x: tensor<32x32xf32>, %b: tensor<32xf32>) -> tensor<32x32xf32> {
  %p = tg.pow %x, %x : tensor<32x32xf32>
  %z = tg.bias_add %p, %b : tensor<32x32xf32>, tensor<32xf32>
  %r = tg.relu %z : tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}
