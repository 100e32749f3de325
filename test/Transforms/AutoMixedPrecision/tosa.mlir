// TOSA joins the policy with its tg counterparts' classes: convolutions take
// f16 input, weights, bias and zero points with acc_type = f32; matmul
// keeps its f32 output (its accumulator); relu's clamp bound saturates to
// f16's largest finite value; exp and reduce_sum stay f32. IR with only
// TOSA ops comes back in TOSA ops only: casts are tosa.cast, zero points
// fold into f16 tosa.const, the unused f32 constants are gone, and the
// result passes upstream's TOSA validation.
// RUN: amp-opt %s --amp-auto-mixed-precision | FileCheck %s
// RUN: amp-opt %s --amp-auto-mixed-precision | mlir-opt-22 --tosa-validate -o /dev/null
// RUN: amp-opt %s --amp-auto-mixed-precision | mlir-opt-22 --pass-pipeline="builtin.module(func.func(tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith,tosa-to-tensor))" -o /dev/null

// CHECK-LABEL: func.func @residual_block
// CHECK-SAME: -> (tensor<1x8x8x16xf32>, tensor<1x1x10xf32>)
// CHECK-NOT: arith.
// CHECK-NOT: amp.cast
// CHECK-NOT: dense<0.000000e+00> : tensor<1xf32>
// CHECK-DAG: %[[ZP:.*]] = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf16>}>
// CHECK-DAG: %[[XH:.*]] = tosa.cast %{{.*}} : (tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf16>
// CHECK: %[[C1:.*]] = tosa.conv2d %[[XH]], %{{.*}}, %{{.*}}, %[[ZP]], %[[ZP]] {acc_type = f32, {{.*}}} : (tensor<1x8x8x16xf16>, tensor<16x3x3x16xf16>, tensor<16xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x8x8x16xf16>
// CHECK: %[[R1:.*]] = tosa.clamp %[[C1]] {max_val = 6.550400e+04 : f16, min_val = 0.000000e+00 : f16}
// CHECK: %[[C2:.*]] = tosa.conv2d %[[R1]], {{.*}} -> tensor<1x8x8x16xf16>
// CHECK: %[[S:.*]] = tosa.add %[[C2]], %[[XH]] : (tensor<1x8x8x16xf16>, tensor<1x8x8x16xf16>) -> tensor<1x8x8x16xf16>
// CHECK: %[[R2:.*]] = tosa.clamp %[[S]] {{.*}} -> tensor<1x8x8x16xf16>
// CHECK: %[[R2F:.*]] = tosa.cast %[[R2]] : (tensor<1x8x8x16xf16>) -> tensor<1x8x8x16xf32>
// CHECK: %[[F:.*]] = tosa.reshape %[[R2]], %{{.*}} -> tensor<1x1x1024xf16>
// CHECK: %[[M:.*]] = tosa.matmul %[[F]], %{{.*}}, %[[ZP]], %[[ZP]] : (tensor<1x1x1024xf16>, tensor<1x1024x10xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x1x10xf32>
// CHECK: tosa.exp %[[M]] : (tensor<1x1x10xf32>) -> tensor<1x1x10xf32>
// CHECK: tosa.reduce_sum %[[R2F]] {axis = 3 : i32} : (tensor<1x8x8x16xf32>) -> tensor<1x8x8x1xf32>
func.func @residual_block(%x: tensor<1x8x8x16xf32>, %w1: tensor<16x3x3x16xf32>, %b1: tensor<16xf32>, %w2: tensor<16x3x3x16xf32>, %b2: tensor<16xf32>, %wf: tensor<1x1024x10xf32>) -> (tensor<1x8x8x16xf32>, tensor<1x1x10xf32>) {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c1 = tosa.conv2d %x, %w1, %b1, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x8x8x16xf32>, tensor<16x3x3x16xf32>, tensor<16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x16xf32>
  %r1 = tosa.clamp %c1 {max_val = 3.40282347E+38 : f32, min_val = 0.0 : f32} : (tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  %c2 = tosa.conv2d %r1, %w2, %b2, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x8x8x16xf32>, tensor<16x3x3x16xf32>, tensor<16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x16xf32>
  %s = tosa.add %c2, %x : (tensor<1x8x8x16xf32>, tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  %r2 = tosa.clamp %s {max_val = 3.40282347E+38 : f32, min_val = 0.0 : f32} : (tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  %shape = tosa.const_shape {values = dense<[1, 1, 1024]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %f = tosa.reshape %r2, %shape : (tensor<1x8x8x16xf32>, !tosa.shape<3>) -> tensor<1x1x1024xf32>
  %m = tosa.matmul %f, %wf, %zp, %zp : (tensor<1x1x1024xf32>, tensor<1x1024x10xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x10xf32>
  %e = tosa.exp %m : (tensor<1x1x10xf32>) -> tensor<1x1x10xf32>
  %sum = tosa.reduce_sum %r2 {axis = 3 : i32} : (tensor<1x8x8x16xf32>) -> tensor<1x8x8x1xf32>
  %mul = tosa.const_shape {values = dense<[1, 1, 1, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %t = tosa.tile %sum, %mul : (tensor<1x8x8x1xf32>, !tosa.shape<4>) -> tensor<1x8x8x16xf32>
  return %t, %e : tensor<1x8x8x16xf32>, tensor<1x1x10xf32>
}
