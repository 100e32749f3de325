// Round trip of contractions, convolution, bias, pooling, normalization,
// softmax and loss ops, custom and generic form; pins the inferred types.
// RUN: amp-opt %s | amp-opt | FileCheck %s
// RUN: amp-opt %s --mlir-print-op-generic | amp-opt | FileCheck %s
// RUN: amp-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @contractions
// GENERIC-LABEL: sym_name = "contractions"
func.func @contractions(%a: tensor<32x64xf16>, %b: tensor<128x64xf16>,
                        %q: tensor<4x16x32xf32>, %k: tensor<4x16x32xf32>) {
  // CHECK: tg.matmul %{{.*}}, %{{.*}} {transpose_b = true} : tensor<32x64xf16>, tensor<128x64xf16>
  // GENERIC: "tg.matmul"(%{{.*}}, %{{.*}}) {transpose_b = true} : (tensor<32x64xf16>, tensor<128x64xf16>) -> tensor<32x128xf16>
  %c = tg.matmul %a, %b {transpose_b = true} : tensor<32x64xf16>, tensor<128x64xf16>
  // CHECK: tg.matmul %{{.*}}, %{{.*}} {transpose_a = true} : tensor<32x64xf16>
  // GENERIC: "tg.matmul"(%{{.*}}, %{{.*}}) {transpose_a = true} : (tensor<32x64xf16>, tensor<32x64xf16>) -> tensor<64x64xf16>
  %g = tg.matmul %a, %a {transpose_a = true} : tensor<32x64xf16>
  // CHECK: tg.batch_matmul %{{.*}}, %{{.*}} {transpose_b = true} : tensor<4x16x32xf32>
  // GENERIC: "tg.batch_matmul"{{.*}} -> tensor<4x16x16xf32>
  %s = tg.batch_matmul %q, %k {transpose_b = true} : tensor<4x16x32xf32>
  return
}

// CHECK-LABEL: func.func @convolution
// GENERIC-LABEL: sym_name = "convolution"
func.func @convolution(%x: tensor<8x28x28x1xf32>, %w: tensor<16x3x3x1xf32>,
                       %xc: tensor<8x3x32x32xf32>, %wc: tensor<8x3x5x5xf32>) {
  // CHECK: %[[Y:.*]] = tg.conv2d %{{.*}}, %{{.*}} {padding = array<i64: 1, 1, 1, 1>} : tensor<8x28x28x1xf32>, tensor<16x3x3x1xf32>
  // GENERIC: "tg.conv2d"{{.*}} -> tensor<8x28x28x16xf32>
  %y = tg.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : tensor<8x28x28x1xf32>, tensor<16x3x3x1xf32>
  // CHECK: tg.conv2d_backward_input %[[Y]], %{{.*}} {padding = array<i64: 1, 1, 1, 1>} : tensor<8x28x28x16xf32>, tensor<16x3x3x1xf32> -> tensor<8x28x28x1xf32>
  %dx = tg.conv2d_backward_input %y, %w {padding = array<i64: 1, 1, 1, 1>} : tensor<8x28x28x16xf32>, tensor<16x3x3x1xf32> -> tensor<8x28x28x1xf32>
  // CHECK: tg.conv2d_backward_filter %{{.*}}, %[[Y]] {padding = array<i64: 1, 1, 1, 1>} : tensor<8x28x28x1xf32>, tensor<8x28x28x16xf32> -> tensor<16x3x3x1xf32>
  %dw = tg.conv2d_backward_filter %x, %y {padding = array<i64: 1, 1, 1, 1>} : tensor<8x28x28x1xf32>, tensor<8x28x28x16xf32> -> tensor<16x3x3x1xf32>
  // NCHW with strides and dilations: (32 - 2*4 - 1) / 2 + 1 = 12.
  // CHECK: tg.conv2d %{{.*}}, %{{.*}} {dilations = array<i64: 2, 2>, layout = "NCHW", strides = array<i64: 2, 2>}
  // GENERIC: "tg.conv2d"{{.*}}{dilations = array<i64: 2, 2>, layout = "NCHW", strides = array<i64: 2, 2>} : (tensor<8x3x32x32xf32>, tensor<8x3x5x5xf32>) -> tensor<8x8x12x12xf32>
  %yc = tg.conv2d %xc, %wc {strides = array<i64: 2, 2>, dilations = array<i64: 2, 2>, layout = "NCHW"} : tensor<8x3x32x32xf32>, tensor<8x3x5x5xf32>
  // Strided backward input: 28x28 and 27x27 inputs both give 14x14, so the
  // result type decides.
  // CHECK: tg.conv2d_backward_input {{.*}} -> tensor<2x27x27x1xf32>
  %ys = tg.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : tensor<8x28x28x1xf32>, tensor<16x3x3x1xf32>
  %dys = arith.constant dense<1.0> : tensor<2x14x14x16xf32>
  %dxs = tg.conv2d_backward_input %dys, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : tensor<2x14x14x16xf32>, tensor<16x3x3x1xf32> -> tensor<2x27x27x1xf32>
  return
}

// CHECK-LABEL: func.func @bias_and_pooling
// GENERIC-LABEL: sym_name = "bias_and_pooling"
func.func @bias_and_pooling(%x: tensor<8x28x28x16xf32>, %b: tensor<16xf32>,
                            %xn: tensor<8x16x28x28xf32>) {
  // CHECK: tg.bias_add %{{.*}}, %{{.*}} : tensor<8x28x28x16xf32>, tensor<16xf32>
  %y = tg.bias_add %x, %b : tensor<8x28x28x16xf32>, tensor<16xf32>
  // CHECK: tg.bias_add %{{.*}}, %{{.*}} {layout = "NCHW"} : tensor<8x16x28x28xf32>, tensor<16xf32>
  %yn = tg.bias_add %xn, %b {layout = "NCHW"} : tensor<8x16x28x28xf32>, tensor<16xf32>
  // CHECK: tg.bias_add_grad %{{.*}} : tensor<8x28x28x16xf32>
  // GENERIC: "tg.bias_add_grad"(%{{.*}}) : (tensor<8x28x28x16xf32>) -> tensor<16xf32>
  %db = tg.bias_add_grad %y : tensor<8x28x28x16xf32>
  // GENERIC: "tg.bias_add_grad"(%{{.*}}) {layout = "NCHW"} : (tensor<8x16x28x28xf32>) -> tensor<16xf32>
  %dbn = tg.bias_add_grad %yn {layout = "NCHW"} : tensor<8x16x28x28xf32>
  // CHECK: %[[P:.*]] = tg.max_pool2d %{{.*}} {strides = array<i64: 2, 2>, window = array<i64: 2, 2>} : tensor<8x28x28x16xf32>
  // GENERIC: "tg.max_pool2d"{{.*}} -> tensor<8x14x14x16xf32>
  %p = tg.max_pool2d %y {window = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<8x28x28x16xf32>
  // CHECK: tg.max_pool2d_grad %[[P]], %{{.*}}, %[[P]] {strides = array<i64: 2, 2>, window = array<i64: 2, 2>} : tensor<8x14x14x16xf32>, tensor<8x28x28x16xf32>
  %dp = tg.max_pool2d_grad %p, %y, %p {window = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<8x14x14x16xf32>, tensor<8x28x28x16xf32>
  // CHECK: tg.avg_pool2d %{{.*}} {padding = array<i64: 1, 1, 1, 1>, window = array<i64: 3, 3>} : tensor<8x28x28x16xf32>
  // GENERIC: "tg.avg_pool2d"{{.*}} -> tensor<8x28x28x16xf32>
  %a = tg.avg_pool2d %y {window = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>} : tensor<8x28x28x16xf32>
  // CHECK: tg.avg_pool2d_grad %{{.*}} {padding = array<i64: 1, 1, 1, 1>, window = array<i64: 3, 3>} : tensor<8x28x28x16xf32> -> tensor<8x28x28x16xf32>
  %da = tg.avg_pool2d_grad %a {window = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>} : tensor<8x28x28x16xf32> -> tensor<8x28x28x16xf32>
  return
}

// CHECK-LABEL: func.func @normalization
// GENERIC-LABEL: sym_name = "normalization"
func.func @normalization(%x: tensor<8x14x14x16xf16>, %s: tensor<16xf32>, %o: tensor<16xf32>,
                         %t: tensor<4x16x32xf16>, %g: tensor<32xf32>, %be: tensor<32xf32>) {
  // CHECK: %[[Y:.*]], %[[M:.*]], %[[I:.*]] = tg.batch_norm %{{.*}}, %{{.*}}, %{{.*}} {epsilon = 1.000000e-03 : f64} : tensor<8x14x14x16xf16>, tensor<16xf32>
  // GENERIC: "tg.batch_norm"{{.*}} -> (tensor<8x14x14x16xf16>, tensor<16xf32>, tensor<16xf32>)
  %y, %m, %i = tg.batch_norm %x, %s, %o {epsilon = 1.0e-3 : f64} : tensor<8x14x14x16xf16>, tensor<16xf32>
  // CHECK: tg.batch_norm_grad %[[Y]], %{{.*}}, %{{.*}}, %[[M]], %[[I]] : tensor<8x14x14x16xf16>, tensor<16xf32>
  // GENERIC: "tg.batch_norm_grad"{{.*}} -> (tensor<8x14x14x16xf16>, tensor<16xf32>, tensor<16xf32>)
  %dx, %ds, %do = tg.batch_norm_grad %y, %x, %s, %m, %i : tensor<8x14x14x16xf16>, tensor<16xf32>
  // CHECK: %[[LY:.*]], %[[LM:.*]], %[[LI:.*]] = tg.layer_norm %{{.*}}, %{{.*}}, %{{.*}} : tensor<4x16x32xf16>, tensor<32xf32>
  // GENERIC: "tg.layer_norm"{{.*}} -> (tensor<4x16x32xf16>, tensor<4x16xf32>, tensor<4x16xf32>)
  %ly, %lm, %li = tg.layer_norm %t, %g, %be : tensor<4x16x32xf16>, tensor<32xf32>
  // CHECK: tg.layer_norm_grad %[[LY]], %{{.*}}, %{{.*}}, %[[LM]], %[[LI]] : tensor<4x16x32xf16>, tensor<32xf32>, tensor<4x16xf32>
  // GENERIC: "tg.layer_norm_grad"{{.*}} -> (tensor<4x16x32xf16>, tensor<32xf32>, tensor<32xf32>)
  %ldx, %ldg, %ldb = tg.layer_norm_grad %ly, %t, %g, %lm, %li : tensor<4x16x32xf16>, tensor<32xf32>, tensor<4x16xf32>
  return
}

// CHECK-LABEL: func.func @softmax_and_loss
// GENERIC-LABEL: sym_name = "softmax_and_loss"
func.func @softmax_and_loss(%x: tensor<32x10xf32>, %labels: tensor<32xi32>,
                            %dist: tensor<32x10xf32>, %t: tensor<4x16x16xf32>) {
  // CHECK: tg.softmax %{{.*}} {axis = 1 : i64} : tensor<4x16x16xf32>
  %s = tg.softmax %t {axis = 1 : i64} : tensor<4x16x16xf32>
  // CHECK: tg.softmax %{{.*}} {causal} : tensor<4x16x16xf32>
  %sc = tg.softmax %t {causal} : tensor<4x16x16xf32>
  // CHECK: tg.softmax_grad %{{.*}}, %{{.*}} {axis = 1 : i64} : tensor<4x16x16xf32>
  %ds = tg.softmax_grad %s, %s {axis = 1 : i64} : tensor<4x16x16xf32>
  // CHECK: tg.log_softmax %{{.*}} : tensor<32x10xf32>
  %l = tg.log_softmax %x : tensor<32x10xf32>
  // CHECK: tg.log_softmax_grad %{{.*}}, %{{.*}} : tensor<32x10xf32>
  %dl = tg.log_softmax_grad %l, %l : tensor<32x10xf32>
  // CHECK: %[[CE:.*]] = tg.softmax_cross_entropy %{{.*}}, %{{.*}} : tensor<32x10xf32>, tensor<32xi32>
  // GENERIC: "tg.softmax_cross_entropy"{{.*}} : (tensor<32x10xf32>, tensor<32xi32>) -> tensor<32xf32>
  %ce = tg.softmax_cross_entropy %x, %labels : tensor<32x10xf32>, tensor<32xi32>
  // CHECK: tg.softmax_cross_entropy %{{.*}}, %{{.*}} : tensor<32x10xf32>, tensor<32x10xf32>
  %ce2 = tg.softmax_cross_entropy %x, %dist : tensor<32x10xf32>, tensor<32x10xf32>
  // CHECK: tg.softmax_cross_entropy_grad %[[CE]], %{{.*}}, %{{.*}} : tensor<32xf32>, tensor<32x10xf32>, tensor<32xi32>
  %dce = tg.softmax_cross_entropy_grad %ce, %x, %labels : tensor<32xf32>, tensor<32x10xf32>, tensor<32xi32>
  return
}
