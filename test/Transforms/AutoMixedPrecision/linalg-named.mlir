// Every structured linalg op has one model that reads what its body
// computes: convolutions of any layout, depthwise convolutions and batched
// or transposed matmuls are allow (f16 inputs, f32 accumulation into their
// init, one cast after them when their users are low); transposes,
// broadcasts, fills and max pooling are clear; sum pooling and softmax are
// infer; linalg.reduce with addf and the named exp are deny.
// RUN: amp-opt %s --amp-auto-mixed-precision | FileCheck %s

// CHECK-LABEL: func.func @convnet
// CHECK: %[[C:.*]] = linalg.conv_2d_nchw_fchw {{.*}} ins(%{{.*}}, %{{.*}} : tensor<?x3x32x32xf16>, tensor<16x3x3x3xf16>) outs(%{{.*}} : tensor<?x16x30x30xf32>)
// CHECK: %[[CH:.*]] = arith.truncf %[[C]] : tensor<?x16x30x30xf32> to tensor<?x16x30x30xf16>
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[CH]] : tensor<?x16x30x30xf16>) outs(%{{.*}} : tensor<?x30x30x16xf16>)
// CHECK: %[[NINF:.*]] = arith.constant 0xFC00 : f16
// CHECK: %[[PI:.*]] = linalg.fill ins(%[[NINF]] : f16) outs(%{{.*}} : tensor<?x15x15x16xf16>)
// CHECK: %[[P:.*]] = linalg.pooling_nhwc_max {{.*}} ins(%[[T]], %{{.*}} : tensor<?x30x30x16xf16>, tensor<2x2xf16>) outs(%[[PI]] : tensor<?x15x15x16xf16>)
// CHECK: linalg.depthwise_conv_2d_nhwc_hwc {{.*}} ins(%[[P]], %{{.*}} : tensor<?x15x15x16xf16>, tensor<3x3x16xf16>) outs(%{{.*}} : tensor<?x13x13x16xf32>)
func.func @convnet(%x: tensor<?x3x32x32xf32>, %w: tensor<16x3x3x3xf32>, %dw: tensor<3x3x16xf32>) -> tensor<?x13x13x16xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x3x32x32xf32>
  %e = tensor.empty(%n) : tensor<?x16x30x30xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x16x30x30xf32>) -> tensor<?x16x30x30xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<?x3x32x32xf32>, tensor<16x3x3x3xf32>) outs(%f : tensor<?x16x30x30xf32>) -> tensor<?x16x30x30xf32>
  %et = tensor.empty(%n) : tensor<?x30x30x16xf32>
  %t = linalg.transpose ins(%c : tensor<?x16x30x30xf32>) outs(%et : tensor<?x30x30x16xf32>) permutation = [0, 2, 3, 1]
  %ep = tensor.empty(%n) : tensor<?x15x15x16xf32>
  %fp = linalg.fill ins(%ninf : f32) outs(%ep : tensor<?x15x15x16xf32>) -> tensor<?x15x15x16xf32>
  %win = tensor.empty() : tensor<2x2xf32>
  %p = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%t, %win : tensor<?x30x30x16xf32>, tensor<2x2xf32>) outs(%fp : tensor<?x15x15x16xf32>) -> tensor<?x15x15x16xf32>
  %ed = tensor.empty(%n) : tensor<?x13x13x16xf32>
  %fd = linalg.fill ins(%zero : f32) outs(%ed : tensor<?x13x13x16xf32>) -> tensor<?x13x13x16xf32>
  %d = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %dw : tensor<?x15x15x16xf32>, tensor<3x3x16xf32>) outs(%fd : tensor<?x13x13x16xf32>) -> tensor<?x13x13x16xf32>
  return %d : tensor<?x13x13x16xf32>
}

// Sum pooling is infer: between two convolutions it runs in f16.
// CHECK-LABEL: func.func @sum_pool_between
// CHECK: linalg.pooling_nhwc_sum {{.*}} outs(%{{.*}} : tensor<1x7x7x8xf16>)
func.func @sum_pool_between(%x: tensor<1x8x8x8xf32>, %w: tensor<1x1x8x8xf32>) -> tensor<1x7x7x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x8x8x8xf32>, tensor<1x1x8x8xf32>) outs(%f : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %win = tensor.empty() : tensor<2x2xf32>
  %ep = tensor.empty() : tensor<1x7x7x8xf32>
  %fp = linalg.fill ins(%zero : f32) outs(%ep : tensor<1x7x7x8xf32>) -> tensor<1x7x7x8xf32>
  %p = linalg.pooling_nhwc_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%c, %win : tensor<1x8x8x8xf32>, tensor<2x2xf32>) outs(%fp : tensor<1x7x7x8xf32>) -> tensor<1x7x7x8xf32>
  %c2 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x7x7x8xf32>, tensor<1x1x8x8xf32>) outs(%fp : tensor<1x7x7x8xf32>) -> tensor<1x7x7x8xf32>
  return %c2 : tensor<1x7x7x8xf32>
}

// Attention: the key transpose follows the batch matmul into f16, softmax
// (infer) between the two batch matmuls too.
// CHECK-LABEL: func.func @attention
// CHECK: linalg.transpose ins(%{{.*}} : tensor<4x8x16xf16>) outs(%{{.*}} : tensor<4x16x8xf16>)
// CHECK: %[[S:.*]] = linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<4x8x16xf16>, tensor<4x16x8xf16>) outs(%{{.*}} : tensor<4x8x8xf32>)
// CHECK: %[[SH:.*]] = arith.truncf %[[S]] : tensor<4x8x8xf32> to tensor<4x8x8xf16>
// CHECK: %[[P:.*]] = linalg.softmax dimension(2) ins(%[[SH]] : tensor<4x8x8xf16>) outs(%{{.*}} : tensor<4x8x8xf16>)
// CHECK: linalg.batch_matmul ins(%[[P]], %{{.*}} : tensor<4x8x8xf16>, tensor<4x8x16xf16>) outs(%{{.*}} : tensor<4x8x16xf32>)
func.func @attention(%q: tensor<4x8x16xf32>, %k: tensor<4x8x16xf32>, %v: tensor<4x8x16xf32>) -> tensor<4x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %ekt = tensor.empty() : tensor<4x16x8xf32>
  %kt = linalg.transpose ins(%k : tensor<4x8x16xf32>) outs(%ekt : tensor<4x16x8xf32>) permutation = [0, 2, 1]
  %es = tensor.empty() : tensor<4x8x8xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<4x8x16xf32>, tensor<4x16x8xf32>) outs(%fs : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  %p = linalg.softmax dimension(2) ins(%s : tensor<4x8x8xf32>) outs(%es : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  %eo = tensor.empty() : tensor<4x8x16xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<4x8x8xf32>, tensor<4x8x16xf32>) outs(%fo : tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
  return %o : tensor<4x8x16xf32>
}

// A matmul with transposed indexing maps is a contraction too; its
// broadcast bias init stays f32 (the accumulator); linalg.reduce with addf
// and the named exp are deny and take the f32 result without a cast.
// CHECK-LABEL: func.func @transposed_maps
// CHECK: %[[INIT:.*]] = linalg.broadcast ins(%{{.*}} : tensor<4xf32>) outs(%{{.*}} : tensor<8x4xf32>)
// CHECK: %[[M:.*]] = linalg.matmul indexing_maps = {{.*}} ins(%{{.*}}, %{{.*}} : tensor<16x8xf16>, tensor<16x4xf16>) outs(%[[INIT]] : tensor<8x4xf32>)
// CHECK-NOT: arith.truncf
// CHECK: linalg.reduce ins(%[[M]] : tensor<8x4xf32>)
// CHECK: linalg.elementwise kind=#linalg.elementwise_kind<exp> ins(%[[M]] : tensor<8x4xf32>)
func.func @transposed_maps(%a: tensor<16x8xf32>, %b: tensor<16x4xf32>, %bias: tensor<4xf32>) -> (tensor<4xf32>, tensor<8x4xf32>) {
  %e = tensor.empty() : tensor<8x4xf32>
  %init = linalg.broadcast ins(%bias : tensor<4xf32>) outs(%e : tensor<8x4xf32>) dimensions = [0]
  %m = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>] ins(%a, %b : tensor<16x8xf32>, tensor<16x4xf32>) outs(%init : tensor<8x4xf32>) -> tensor<8x4xf32>
  %r = linalg.reduce ins(%m : tensor<8x4xf32>) outs(%bias : tensor<4xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %x = linalg.elementwise kind=#linalg.elementwise_kind<exp> ins(%m : tensor<8x4xf32>) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %r, %x : tensor<4xf32>, tensor<8x4xf32>
}
