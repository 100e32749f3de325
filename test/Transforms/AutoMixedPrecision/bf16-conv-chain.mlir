// In bf16, conv2d -> bias_add -> relu all run in bf16: bias_add is an infer
// op that follows an allow op and no deny op (TensorFlow's bf16 rule), and
// relu follows it as a clear op.
// RUN: amp-opt %s --amp-auto-mixed-precision=precision=bf16 | FileCheck %s
// RUN: amp-opt %s --amp-auto-mixed-precision | FileCheck %s --check-prefix=F16

// CHECK-LABEL: func.func @conv_bias_relu
// CHECK: tg.conv2d {{.*}} : tensor<8x28x28x1xbf16>, tensor<16x3x3x1xbf16>
// CHECK: tg.bias_add {{.*}} : tensor<8x28x28x16xbf16>, tensor<16xbf16>
// CHECK: %[[R:.*]] = tg.relu {{.*}} : tensor<8x28x28x16xbf16>
// CHECK: amp.cast %[[R]] : tensor<8x28x28x16xbf16> to tensor<8x28x28x16xf32>
// In f16 the bias_add is not between two allow ops and stays f32.
// F16-LABEL: func.func @conv_bias_relu
// F16: tg.conv2d {{.*}} : tensor<8x28x28x1xf16>, tensor<16x3x3x1xf16>
// F16: tg.bias_add {{.*}} : tensor<8x28x28x16xf32>, tensor<16xf32>
// F16: tg.relu {{.*}} : tensor<8x28x28x16xf32>
func.func @conv_bias_relu(%x: tensor<8x28x28x1xf32>, %w: tensor<16x3x3x1xf32>, %b: tensor<16xf32>)
    -> (tensor<8x28x28x16xf32> {tg.role = "output"}) {
  %y = tg.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : tensor<8x28x28x1xf32>, tensor<16x3x3x1xf32>
  %z = tg.bias_add %y, %b : tensor<8x28x28x16xf32>, tensor<16xf32>
  %r = tg.relu %z : tensor<8x28x28x16xf32>
  return %r : tensor<8x28x28x16xf32>
}
