// Gradient rules of contractions, convolution, bias, pooling,
// normalization, softmax and loss use tg's dedicated backward ops.
// RUN: amp-opt %s --tg-autodiff | FileCheck %s

// Each transpose combination gives the right pair of products.
// CHECK-LABEL: func.func @matmuls
// CHECK-DAG: tg.matmul %{{.*}}, %{{.*}} {transpose_b = true} : tensor<4x16xf32>, tensor<8x16xf32>
// CHECK-DAG: tg.matmul %{{.*}}, %{{.*}} {transpose_a = true} : tensor<4x8xf32>, tensor<4x16xf32>
func.func @matmuls(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> (tensor<4x8xf32>, tensor<8x16xf32>) {
  %c = tg.matmul %a, %b : tensor<4x8xf32>, tensor<8x16xf32>
  %l = tg.reduce_sum %c {dims = array<i64: 0, 1>} : tensor<4x16xf32>
  %g:2 = tg.gradients %l wrt %a, %b : tensor<f32>, tensor<4x8xf32>, tensor<8x16xf32>
  return %g#0, %g#1 : tensor<4x8xf32>, tensor<8x16xf32>
}

// C = A^T B^T: dA = B^T dC^T, dB = dC^T A^T.
// CHECK-LABEL: func.func @both_transposed
// CHECK-DAG: tg.batch_matmul %{{.*}}, %{{.*}} {transpose_a = true, transpose_b = true} : tensor<2x16x8xf32>, tensor<2x4x16xf32>
// CHECK-DAG: tg.batch_matmul %{{.*}}, %{{.*}} {transpose_a = true, transpose_b = true} : tensor<2x4x16xf32>, tensor<2x8x4xf32>
func.func @both_transposed(%a: tensor<2x8x4xf32>, %b: tensor<2x16x8xf32>) -> (tensor<2x8x4xf32>, tensor<2x16x8xf32>) {
  %c = tg.batch_matmul %a, %b {transpose_a = true, transpose_b = true} : tensor<2x8x4xf32>, tensor<2x16x8xf32>
  %l = tg.reduce_sum %c {dims = array<i64: 0, 1, 2>} : tensor<2x4x16xf32>
  %g:2 = tg.gradients %l wrt %a, %b : tensor<f32>, tensor<2x8x4xf32>, tensor<2x16x8xf32>
  return %g#0, %g#1 : tensor<2x8x4xf32>, tensor<2x16x8xf32>
}

// CHECK-LABEL: func.func @cnn
// CHECK-DAG: tg.max_pool2d_grad {{.*}} {strides = array<i64: 2, 2>, window = array<i64: 2, 2>}
// CHECK-DAG: tg.relu_grad
// CHECK-DAG: tg.batch_norm_grad {{.*}} : tensor<2x8x8x4xf32>, tensor<4xf32>
// CHECK-DAG: tg.bias_add_grad {{.*}} : tensor<2x8x8x4xf32>
// CHECK-DAG: tg.conv2d_backward_filter {{.*}} {padding = array<i64: 1, 1, 1, 1>} : tensor<2x8x8x3xf32>, tensor<2x8x8x4xf32> -> tensor<4x3x3x3xf32>
// CHECK-DAG: tg.conv2d_backward_input {{.*}} {padding = array<i64: 1, 1, 1, 1>} : tensor<2x8x8x4xf32>, tensor<4x3x3x3xf32> -> tensor<2x8x8x3xf32>
// CHECK-DAG: tg.avg_pool2d_grad {{.*}} : tensor<2x4x4x4xf32> -> tensor<2x8x8x4xf32>
func.func @cnn(%x: tensor<2x8x8x3xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>,
               %s: tensor<4xf32>, %o: tensor<4xf32>)
    -> (tensor<2x8x8x3xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %c = tg.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : tensor<2x8x8x3xf32>, tensor<4x3x3x3xf32>
  %cb = tg.bias_add %c, %b : tensor<2x8x8x4xf32>, tensor<4xf32>
  %n, %mean, %inv = tg.batch_norm %cb, %s, %o : tensor<2x8x8x4xf32>, tensor<4xf32>
  %r = tg.relu %n : tensor<2x8x8x4xf32>
  %p = tg.max_pool2d %r {window = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<2x8x8x4xf32>
  %q = tg.avg_pool2d %r {window = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<2x8x8x4xf32>
  %pq = tg.add %p, %q : tensor<2x4x4x4xf32>
  %l = tg.reduce_sum %pq {dims = array<i64: 0, 1, 2, 3>} : tensor<2x4x4x4xf32>
  %g:5 = tg.gradients %l wrt %x, %w, %b, %s, %o : tensor<f32>, tensor<2x8x8x3xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return %g#0, %g#1, %g#2, %g#3, %g#4 : tensor<2x8x8x3xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @attention_pieces
// CHECK-DAG: tg.layer_norm_grad {{.*}} : tensor<2x4x8xf32>, tensor<8xf32>, tensor<2x4xf32>
// CHECK-DAG: tg.softmax_grad {{.*}} : tensor<2x4x8xf32>
// CHECK-DAG: tg.log_softmax_grad {{.*}} {axis = 1 : i64} : tensor<2x4x8xf32>
func.func @attention_pieces(%x: tensor<2x4x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>)
    -> (tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %y, %m, %i = tg.layer_norm %x, %g, %b : tensor<2x4x8xf32>, tensor<8xf32>
  %s = tg.softmax %y {axis = -1 : i64} : tensor<2x4x8xf32>
  %t = tg.log_softmax %s {axis = 1 : i64} : tensor<2x4x8xf32>
  %l = tg.reduce_sum %t {dims = array<i64: 0, 1, 2>} : tensor<2x4x8xf32>
  %d:3 = tg.gradients %l wrt %x, %g, %b : tensor<f32>, tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>
  return %d#0, %d#1, %d#2 : tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>
}

// A causal softmax's gradient is softmax_grad of its output (0 where the
// mask hid a key, since y is 0 there).
// CHECK-LABEL: func.func @causal_attention
// CHECK: %[[P:.*]] = tg.softmax %{{.*}} {causal} : tensor<2x4x4xf32>
// CHECK: tg.softmax_grad %{{.*}}, %[[P]] : tensor<2x4x4xf32>
func.func @causal_attention(%s: tensor<2x4x4xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x4x4xf32> {
  %p = tg.softmax %s {causal} : tensor<2x4x4xf32>
  %o = tg.batch_matmul %p, %v : tensor<2x4x4xf32>, tensor<2x4x8xf32>
  %l = tg.reduce_sum %o {dims = array<i64: 0, 1, 2>} : tensor<2x4x8xf32>
  %g = tg.gradients %l wrt %s : tensor<f32>, tensor<2x4x4xf32>
  return %g : tensor<2x4x4xf32>
}

// The labels get no gradient; the logits get softmax_cross_entropy_grad.
// CHECK-LABEL: func.func @cross_entropy
// CHECK: %[[CE:.*]] = tg.softmax_cross_entropy %[[Z:.*]], %[[Y:.*]] :
// CHECK: tg.softmax_cross_entropy_grad %{{.*}}, %[[Z]], %[[Y]] : tensor<4xf32>, tensor<4x10xf32>, tensor<4xi32>
func.func @cross_entropy(%z: tensor<4x10xf32>, %y: tensor<4xi32>) -> tensor<4x10xf32> {
  %ce = tg.softmax_cross_entropy %z, %y : tensor<4x10xf32>, tensor<4xi32>
  %l = tg.reduce_mean %ce {dims = array<i64: 0>} : tensor<4xf32>
  %g = tg.gradients %l wrt %z : tensor<f32>, tensor<4x10xf32>
  return %g : tensor<4x10xf32>
}
