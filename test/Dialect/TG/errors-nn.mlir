// Contraction, convolution, bias, pooling, normalization, softmax and loss
// ops reject wrong ranks, shapes, types and attributes by name.
// RUN: amp-opt %s -split-input-file -verify-diagnostics

func.func @matmul_rank(%a: tensor<2x4x8xf32>, %b: tensor<8x4xf32>) {
  // expected-error @+1 {{'tg.matmul' op expects rank-2 operands, got ranks 3 and 2}}
  %c = tg.matmul %a, %b : tensor<2x4x8xf32>, tensor<8x4xf32>
  return
}

// -----

func.func @matmul_k(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) {
  // expected-error @+1 {{'tg.matmul' op contracting dimensions differ: lhs 4x8 gives K = 8, rhs 4x8 gives K = 4}}
  %c = tg.matmul %a, %b : tensor<4x8xf32>
  return
}

// -----

func.func @matmul_types(%a: tensor<4x8xf32>, %b: tensor<8x4xf16>) {
  // expected-error @+1 {{'tg.matmul' op operands must share an element type, got f32 and f16}}
  %c = tg.matmul %a, %b : tensor<4x8xf32>, tensor<8x4xf16>
  return
}

// -----

func.func @matmul_flag_kind(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) {
  // expected-error @+1 {{'tg.matmul' op attribute 'transpose_a' failed to satisfy constraint: bool attribute}}
  %c = tg.matmul %a, %b {transpose_a = 1 : i64} : tensor<4x8xf32>, tensor<8x4xf32>
  return
}

// -----

func.func @batch_matmul_rank(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) {
  // expected-error @+1 {{'tg.batch_matmul' op expects operands of equal rank >= 3, got ranks 2 and 2}}
  %c = tg.batch_matmul %a, %b : tensor<4x8xf32>, tensor<8x4xf32>
  return
}

// -----

func.func @batch_matmul_batch(%a: tensor<2x4x8xf32>, %b: tensor<3x8x4xf32>) {
  // expected-error @+1 {{'tg.batch_matmul' op batch dimensions differ: 2 vs 3}}
  %c = tg.batch_matmul %a, %b : tensor<2x4x8xf32>, tensor<3x8x4xf32>
  return
}

// -----

func.func @conv2d_channels(%x: tensor<1x8x8x3xf32>, %w: tensor<4x3x3x2xf32>) {
  // expected-error @+1 {{'tg.conv2d' op input has 3 channels but the filter expects 2}}
  %y = tg.conv2d %x, %w : tensor<1x8x8x3xf32>, tensor<4x3x3x2xf32>
  return
}

// -----

func.func @conv2d_padding_length(%x: tensor<1x8x8x3xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'tg.conv2d' op padding must have 4 entries [top, bottom, left, right], got 2}}
  %y = tg.conv2d %x, %w {padding = array<i64: 1, 1>} : tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>
  return
}

// -----

func.func @conv2d_negative_stride(%x: tensor<1x8x8x3xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'tg.conv2d' op strides must be two positive integers [sh, sw]}}
  %y = tg.conv2d %x, %w {strides = array<i64: -1, 1>} : tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>
  return
}

// -----

func.func @conv2d_layout(%x: tensor<1x8x8x3xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'tg.conv2d' op attribute 'layout' failed to satisfy constraint: one of "NHWC", "NCHW" (tensor layout)}}
  %y = tg.conv2d %x, %w {layout = "HWCN"} : tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>
  return
}

// -----

func.func @conv2d_window_too_big(%x: tensor<1x2x2x3xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'tg.conv2d' op filter window 3x3 does not fit the padded input 1x2x2x3}}
  %y = tg.conv2d %x, %w : tensor<1x2x2x3xf32>, tensor<4x3x3x3xf32>
  return
}

// -----

func.func @conv2d_rank(%x: tensor<8x8x3xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'tg.conv2d' op expects rank-4 input and filter, got ranks 3 and 4}}
  %y = tg.conv2d %x, %w : tensor<8x8x3xf32>, tensor<4x3x3x3xf32>
  return
}

// -----

func.func @conv2d_padding_kind(%x: tensor<1x8x8x3xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'tg.conv2d' op attribute 'padding' failed to satisfy constraint: i64 dense array attribute}}
  %y = tg.conv2d %x, %w {padding = [1, 1, 1, 1]} : tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>
  return
}

// -----

func.func @conv2d_backward_input_shape(%dy: tensor<1x8x8x4xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'tg.conv2d_backward_input' op dy has shape 1x8x8x4 but the forward conv2d of input 1x8x8x3 and filter 4x3x3x3 produces 1x6x6x4}}
  %dx = tg.conv2d_backward_input %dy, %w : tensor<1x8x8x4xf32>, tensor<4x3x3x3xf32> -> tensor<1x8x8x3xf32>
  return
}

// -----

func.func @conv2d_backward_filter_shape(%x: tensor<1x8x8x3xf32>, %dy: tensor<1x6x6x5xf32>) {
  // expected-error @+1 {{'tg.conv2d_backward_filter' op dy has shape 1x6x6x5 but the forward conv2d of input 1x8x8x3 and filter 4x3x3x3 produces 1x6x6x4}}
  %dw = tg.conv2d_backward_filter %x, %dy : tensor<1x8x8x3xf32>, tensor<1x6x6x5xf32> -> tensor<4x3x3x3xf32>
  return
}

// -----

func.func @conv2d_backward_filter_dilation(%x: tensor<1x8x8x3xf32>, %dy: tensor<1x6x6x4xf32>) {
  // expected-error @+1 {{'tg.conv2d_backward_filter' op dilations must be two positive integers [dh, dw]}}
  %dw = tg.conv2d_backward_filter %x, %dy {dilations = array<i64: 0, 1>} : tensor<1x8x8x3xf32>, tensor<1x6x6x4xf32> -> tensor<4x3x3x3xf32>
  return
}

// -----

func.func @bias_add_size(%x: tensor<4x8xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'tg.bias_add' op bias must have shape [8] (the channel dim 1 of 4x8), got 'tensor<4xf32>'}}
  %y = tg.bias_add %x, %b : tensor<4x8xf32>, tensor<4xf32>
  return
}

// -----

func.func @bias_add_nchw(%x: tensor<2x3x8x8xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{'tg.bias_add' op bias must have shape [3] (the channel dim 1 of 2x3x8x8), got 'tensor<8xf32>'}}
  %y = tg.bias_add %x, %b {layout = "NCHW"} : tensor<2x3x8x8xf32>, tensor<8xf32>
  return
}

// -----

func.func @bias_add_rank(%x: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'tg.bias_add' op input must have rank >= 2, got rank 1}}
  %y = tg.bias_add %x, %b : tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @bias_add_grad_layout(%dy: tensor<4x8xf32>) {
  // expected-error @+1 {{'tg.bias_add_grad' op attribute 'layout' failed to satisfy constraint: one of "NHWC", "NCHW" (tensor layout)}}
  %db = tg.bias_add_grad %dy {layout = "NC"} : tensor<4x8xf32>
  return
}

// -----

func.func @bias_add_grad_rank(%dy: tensor<8xf32>) {
  // expected-error @+1 {{'tg.bias_add_grad' op dy must have rank >= 2, got rank 1}}
  %db = tg.bias_add_grad %dy : tensor<8xf32>
  return
}

// -----

func.func @max_pool2d_window(%x: tensor<1x8x8x3xf32>) {
  // expected-error @+1 {{'tg.max_pool2d' op window must be two positive sizes [kh, kw], got [0x2]}}
  %y = tg.max_pool2d %x {window = array<i64: 0, 2>} : tensor<1x8x8x3xf32>
  return
}

// -----

func.func @max_pool2d_missing_window(%x: tensor<1x8x8x3xf32>) {
  // expected-error @+1 {{'tg.max_pool2d' op requires attribute 'window'}}
  %y = tg.max_pool2d %x : tensor<1x8x8x3xf32>
  return
}

// -----

func.func @avg_pool2d_rank(%x: tensor<8x8x3xf32>) {
  // expected-error @+1 {{'tg.avg_pool2d' op expects a rank-4 input, got rank 3}}
  %y = tg.avg_pool2d %x {window = array<i64: 2, 2>} : tensor<8x8x3xf32>
  return
}

// -----

func.func @avg_pool2d_negative_padding(%x: tensor<1x8x8x3xf32>) {
  // expected-error @+1 {{'tg.avg_pool2d' op padding must be non-negative}}
  %y = tg.avg_pool2d %x {window = array<i64: 2, 2>, padding = array<i64: 0, -1, 0, 0>} : tensor<1x8x8x3xf32>
  return
}

// -----

func.func @max_pool2d_grad_shape(%dy: tensor<1x3x3x3xf32>, %x: tensor<1x8x8x3xf32>) {
  // expected-error @+1 {{'tg.max_pool2d_grad' op dy and y must be 'tensor<1x4x4x3xf32>' (max_pool2d of the input 'tensor<1x8x8x3xf32>'), got 'tensor<1x3x3x3xf32>'}}
  %dx = tg.max_pool2d_grad %dy, %x, %dy {window = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x3x3x3xf32>, tensor<1x8x8x3xf32>
  return
}

// -----

func.func @avg_pool2d_grad_shape(%dy: tensor<1x3x3x3xf32>) {
  // expected-error @+1 {{'tg.avg_pool2d_grad' op dy must be 'tensor<1x4x4x3xf32>' (avg_pool2d of the result shape 'tensor<1x8x8x3xf32>'), got 'tensor<1x3x3x3xf32>'}}
  %dx = tg.avg_pool2d_grad %dy {window = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x3x3x3xf32> -> tensor<1x8x8x3xf32>
  return
}

// -----

func.func @batch_norm_scale_f16(%x: tensor<2x4x4x3xf16>, %s: tensor<3xf16>) {
  // expected-error @+1 {{'tg.batch_norm' op scale must be tensor<3xf32>, got tensor<3xf16>}}
  %y, %m, %i = tg.batch_norm %x, %s, %s : tensor<2x4x4x3xf16>, tensor<3xf16>
  return
}

// -----

func.func @batch_norm_scale_shape(%x: tensor<2x4x4x3xf32>, %s: tensor<4xf32>) {
  // expected-error @+1 {{'tg.batch_norm' op scale must be tensor<3xf32>, got tensor<4xf32>}}
  %y, %m, %i = tg.batch_norm %x, %s, %s : tensor<2x4x4x3xf32>, tensor<4xf32>
  return
}

// -----

func.func @batch_norm_rank(%x: tensor<2x4x3xf32>, %s: tensor<3xf32>) {
  // expected-error @+1 {{'tg.batch_norm' op input must have rank 2 or 4, got rank 3}}
  %y, %m, %i = tg.batch_norm %x, %s, %s : tensor<2x4x3xf32>, tensor<3xf32>
  return
}

// -----

func.func @batch_norm_grad_stats(%x: tensor<2x4x4x3xf32>, %s: tensor<4xf32>) {
  // expected-error @+1 {{'tg.batch_norm_grad' op scale must be tensor<3xf32>, got tensor<4xf32>}}
  %dx, %ds, %do = tg.batch_norm_grad %x, %x, %s, %s, %s : tensor<2x4x4x3xf32>, tensor<4xf32>
  return
}

// -----

func.func @layer_norm_gamma(%x: tensor<2x4x8xf32>, %g: tensor<4xf32>) {
  // expected-error @+1 {{'tg.layer_norm' op gamma must be tensor<8xf32>, got tensor<4xf32>}}
  %y, %m, %i = tg.layer_norm %x, %g, %g : tensor<2x4x8xf32>, tensor<4xf32>
  return
}

// -----

func.func @layer_norm_grad_mean(%x: tensor<2x4x8xf32>, %g: tensor<8xf32>, %m: tensor<2xf32>) {
  // expected-error @+1 {{'tg.layer_norm_grad' op mean must be tensor<2x4xf32>, got tensor<2xf32>}}
  %dx, %dg, %db = tg.layer_norm_grad %x, %x, %g, %m, %m : tensor<2x4x8xf32>, tensor<8xf32>, tensor<2xf32>
  return
}

// -----

func.func @softmax_axis(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'tg.softmax' op axis 2 is out of range for rank 2 (expected [-2, 2))}}
  %y = tg.softmax %x {axis = 2 : i64} : tensor<4x8xf32>
  return
}

// -----

func.func @causal_softmax_axis(%x: tensor<4x8x8xf32>) {
  // expected-error @+1 {{'tg.softmax' op causal softmax needs scores [..., queries, keys] (rank >= 2) and the last axis, got rank 3 and axis 1}}
  %y = tg.softmax %x {axis = 1 : i64, causal} : tensor<4x8x8xf32>
  return
}

// -----

func.func @causal_softmax_rank(%x: tensor<8xf32>) {
  // expected-error @+1 {{'tg.softmax' op causal softmax needs scores [..., queries, keys] (rank >= 2) and the last axis, got rank 1 and axis -1}}
  %y = tg.softmax %x {causal} : tensor<8xf32>
  return
}

// -----

func.func @log_softmax_axis(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'tg.log_softmax' op axis -3 is out of range for rank 2 (expected [-2, 2))}}
  %y = tg.log_softmax %x {axis = -3 : i64} : tensor<4x8xf32>
  return
}

// -----

func.func @softmax_grad_axis(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'tg.softmax_grad' op axis 5 is out of range for rank 2}}
  %y = tg.softmax_grad %x, %x {axis = 5 : i64} : tensor<4x8xf32>
  return
}

// -----

func.func @log_softmax_grad_types(%x: tensor<4x8xf32>, %h: tensor<4x8xf16>) {
  // expected-error @+1 {{'tg.log_softmax_grad' op requires the same type for all operands and results}}
  %y = "tg.log_softmax_grad"(%x, %h) : (tensor<4x8xf32>, tensor<4x8xf16>) -> tensor<4x8xf32>
  return
}

// -----

func.func @cross_entropy_label_rank(%l: tensor<4x10xf32>, %y: tensor<4x1xi32>) {
  // expected-error @+1 {{'tg.softmax_cross_entropy' op integer labels must be [4] (one class index per example), got tensor<4x1xi32>}}
  %c = tg.softmax_cross_entropy %l, %y : tensor<4x10xf32>, tensor<4x1xi32>
  return
}

// -----

func.func @cross_entropy_logits_rank(%l: tensor<4x10x2xf32>, %y: tensor<4xi32>) {
  // expected-error @+1 {{'tg.softmax_cross_entropy' op logits must be [N, C], got tensor<4x10x2xf32>}}
  %c = tg.softmax_cross_entropy %l, %y : tensor<4x10x2xf32>, tensor<4xi32>
  return
}

// -----

func.func @cross_entropy_dist(%l: tensor<4x10xf32>, %y: tensor<4x10xf16>) {
  // expected-error @+1 {{'tg.softmax_cross_entropy' op labels must be i32/i64 [N] class indices or a distribution typed like the logits (tensor<4x10xf32>), got tensor<4x10xf16>}}
  %c = tg.softmax_cross_entropy %l, %y : tensor<4x10xf32>, tensor<4x10xf16>
  return
}

// -----

func.func @cross_entropy_grad_dloss(%d: tensor<5xf32>, %l: tensor<4x10xf32>, %y: tensor<4xi32>) {
  // expected-error @+1 {{'tg.softmax_cross_entropy_grad' op dloss must be 'tensor<4xf32>' (the loss type), got 'tensor<5xf32>'}}
  %g = tg.softmax_cross_entropy_grad %d, %l, %y : tensor<5xf32>, tensor<4x10xf32>, tensor<4xi32>
  return
}

// -----

// Type inference reads the layout before the verifier runs: a bad name is
// refused there too (as an attribute error), never read as a default.
func.func @max_pool2d_layout(%x: tensor<1x8x8x3xf32>) {
  // expected-error @+1 {{'tg.max_pool2d' op attribute 'layout' failed to satisfy constraint: one of "NHWC", "NCHW" (tensor layout)}}
  %y = tg.max_pool2d %x {window = array<i64: 2, 2>, layout = "nhwc"} : tensor<1x8x8x3xf32>
  return
}

// -----

func.func @batch_norm_layout(%x: tensor<2x4xf32>, %s: tensor<4xf32>) {
  // expected-error @+1 {{'tg.batch_norm' op attribute 'layout' failed to satisfy constraint: one of "NHWC", "NCHW" (tensor layout)}}
  %y, %m, %v = tg.batch_norm %x, %s, %s {layout = 3 : i64} : tensor<2x4xf32>, tensor<4xf32>
  return
}
