// An amp.cast f16/bf16 -> f32 read only by bias gradients makes no tensor:
// amprt_bias_add_grad sums the 16-bit tensor into its f32 result (the sums
// of the widened values), and the 16-bit tensor lives until the last bias
// gradient that reads it. A cast with another user, or from f32, is
// lowered as written.
// RUN: amp-opt %s --amp-lower-to-runtime | FileCheck %s
// RUN: amp-opt %s --amp-lower-to-runtime=fold-casts-into-bias-grads=0 \
// RUN:   | FileCheck %s --check-prefix=KEPT

// The gradient of a relu, widened for two f32 bias gradients, and a bf16
// argument widened for an NCHW one.
// CHECK-LABEL: func.func @gradient(
// CHECK: %[[SLOT:.*]] = llvm.getelementptr %arg1[2]
// CHECK: %[[ARG:.*]] = llvm.load %[[SLOT]]
// CHECK: %[[G:.*]] = call @amprt_tensor_new
// CHECK: call @amprt_relu_grad(%arg0, %{{.*}}, %{{.*}}, %[[G]])
// CHECK-NOT: amprt_cast
// CHECK-NOT: amprt_tensor_release(%[[G]])
// CHECK: call @amprt_bias_add_grad(%arg0, %[[G]],
// CHECK-NOT: amprt_cast
// CHECK: call @amprt_bias_add_grad(%arg0, %[[G]],
// CHECK-NEXT: call @amprt_record_status
// CHECK-NEXT: call @amprt_tensor_release(%[[G]])
// CHECK-NOT: amprt_cast
// CHECK: call @amprt_bias_add_grad(%arg0, %[[ARG]],
// CHECK: return
// KEPT-LABEL: func.func @gradient(
// KEPT-COUNT-2: call @amprt_cast(
// KEPT-NOT: call @amprt_cast(
// KEPT-LABEL: func.func @kept(
func.func @gradient(%dy: tensor<2x3x3x4xf16>, %x: tensor<2x3x3x4xf16>,
                    %db: tensor<2x4x3x3xbf16>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %g = tg.relu_grad %dy, %x : tensor<2x3x3x4xf16>
  %w = amp.cast %g : tensor<2x3x3x4xf16> to tensor<2x3x3x4xf32>
  %b = tg.bias_add_grad %w : tensor<2x3x3x4xf32>
  %c = tg.bias_add_grad %w : tensor<2x3x3x4xf32>
  %wb = amp.cast %db : tensor<2x4x3x3xbf16> to tensor<2x4x3x3xf32>
  %n = tg.bias_add_grad %wb {layout = "NCHW"} : tensor<2x4x3x3xf32>
  return %b, %n, %c : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// A widened tensor that something else reads too.
// CHECK-LABEL: func.func @kept(
// CHECK: call @amprt_cast(
// CHECK: call @amprt_bias_add_grad(
// CHECK: call @amprt_exp(
func.func @kept(%g: tensor<4x8xf16>) -> (tensor<8xf32>, tensor<4x8xf32>) {
  %w = amp.cast %g : tensor<4x8xf16> to tensor<4x8xf32>
  %b = tg.bias_add_grad %w : tensor<4x8xf32>
  %e = tg.exp %w : tensor<4x8xf32>
  return %b, %e : tensor<8xf32>, tensor<4x8xf32>
}
