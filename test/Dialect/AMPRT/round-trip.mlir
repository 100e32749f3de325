// Round trip of every amprt op, in its custom and its generic form.
// RUN: amp-opt %s | amp-opt | FileCheck %s
// RUN: amp-opt %s --mlir-print-op-generic | amp-opt | FileCheck %s

// CHECK-LABEL: func.func @casts_on_read
// CHECK: %[[H:.*]] = amprt.cast_on_read %{{.*}} : tensor<8x4xf32> to tensor<8x4xf16>
// CHECK: tg.matmul %{{.*}}, %[[H]]
// CHECK: %[[W:.*]] = amprt.cast_on_read %{{.*}} : tensor<2x4xbf16> to tensor<2x4xf32>
// CHECK: tg.bias_add_grad %[[W]]
func.func @casts_on_read(%x: tensor<2x8xf16>, %w: tensor<8x4xf32>,
                         %dy: tensor<2x4xbf16>)
    -> (tensor<2x4xf16>, tensor<4xf32>) {
  %h = amprt.cast_on_read %w : tensor<8x4xf32> to tensor<8x4xf16>
  %y = tg.matmul %x, %h : tensor<2x8xf16>, tensor<8x4xf16>
  %w32 = amprt.cast_on_read %dy : tensor<2x4xbf16> to tensor<2x4xf32>
  %db = tg.bias_add_grad %w32 : tensor<2x4xf32>
  return %y, %db : tensor<2x4xf16>, tensor<4xf32>
}

// CHECK-LABEL: func.func @view
// CHECK: amprt.view %{{.*}} : tensor<2x3x4xf16> to tensor<6x4xf16>
func.func @view(%x: tensor<2x3x4xf16>) -> tensor<6x4xf16> {
  %v = amprt.view %x : tensor<2x3x4xf16> to tensor<6x4xf16>
  %y = tg.relu %v : tensor<6x4xf16>
  return %y : tensor<6x4xf16>
}

// CHECK-LABEL: func.func @unscale_all_finite
// CHECK: %{{.*}}:2, %{{.*}} = amprt.unscale_all_finite %{{.*}}, %{{.*}} scale %{{.*}} : (tensor<8xf16>, tensor<4xf32>) -> (tensor<8xf32>, tensor<4xf32>, tensor<i1>)
func.func @unscale_all_finite(%g0: tensor<8xf16>, %g1: tensor<4xf32>,
                              %s: tensor<f32>)
    -> (tensor<8xf32>, tensor<4xf32>, tensor<i1>) {
  %u:2, %ok = amprt.unscale_all_finite %g0, %g1 scale %s
      : (tensor<8xf16>, tensor<4xf32>) -> (tensor<8xf32>, tensor<4xf32>, tensor<i1>)
  return %u#0, %u#1, %ok : tensor<8xf32>, tensor<4xf32>, tensor<i1>
}

// CHECK-LABEL: func.func @epilogue
// CHECK: amprt.product_epilogue(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<4x8xf32>, tensor<8x3xf32>, tensor<3xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>)
// CHECK: ^bb0(
// CHECK-NEXT: tg.matmul
// CHECK-NEXT: tg.bias_add
// CHECK-NEXT: tg.gelu
// CHECK-NEXT: amprt.yield
// CHECK: amprt.product_epilogue(%{{.*}}, %{{.*}}) : (tensor<1x5x5x2xf16>, tensor<3x3x3x2xf16>) -> tensor<1x5x5x3xf16>
// CHECK: tg.conv2d
// CHECK-NEXT: tg.leaky_relu
func.func @epilogue(%x: tensor<4x8xf32>, %w: tensor<8x3xf32>, %b: tensor<3xf32>,
                    %i: tensor<1x5x5x2xf16>, %f: tensor<3x3x3x2xf16>)
    -> (tensor<4x3xf32>, tensor<4x3xf32>, tensor<1x5x5x3xf16>) {
  %y, %pre = amprt.product_epilogue (%x, %w, %b)
      : (tensor<4x8xf32>, tensor<8x3xf32>, tensor<3xf32>)
        -> (tensor<4x3xf32>, tensor<4x3xf32>) {
  ^bb0(%a: tensor<4x8xf32>, %c: tensor<8x3xf32>, %d: tensor<3xf32>):
    %h = tg.matmul %a, %c : tensor<4x8xf32>, tensor<8x3xf32>
    %z = tg.bias_add %h, %d : tensor<4x3xf32>, tensor<3xf32>
    %g = tg.gelu %z : tensor<4x3xf32>
    amprt.yield %g, %z : tensor<4x3xf32>, tensor<4x3xf32>
  }
  %o = amprt.product_epilogue (%i, %f)
      : (tensor<1x5x5x2xf16>, tensor<3x3x3x2xf16>) -> tensor<1x5x5x3xf16> {
  ^bb0(%a: tensor<1x5x5x2xf16>, %c: tensor<3x3x3x2xf16>):
    %h = tg.conv2d %a, %c {padding = array<i64: 1, 1, 1, 1>}
        : tensor<1x5x5x2xf16>, tensor<3x3x3x2xf16>
    %r = tg.leaky_relu %h {alpha = 0.25 : f64} : tensor<1x5x5x3xf16>
    amprt.yield %r : tensor<1x5x5x3xf16>
  }
  return %y, %pre, %o : tensor<4x3xf32>, tensor<4x3xf32>, tensor<1x5x5x3xf16>
}

// CHECK-LABEL: func.func @chain
// CHECK: amprt.elementwise_chain(%{{.*}}, %{{.*}}) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
// CHECK: tg.mul
// CHECK-NEXT: tg.tanh
// CHECK-NEXT: amprt.yield
func.func @chain(%x: tensor<8xf32>, %c: tensor<8xf32>) -> tensor<8xf32> {
  %y = amprt.elementwise_chain (%x, %c)
      : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32> {
  ^bb0(%a: tensor<8xf32>, %b: tensor<8xf32>):
    %0 = tg.mul %a, %b : tensor<8xf32>
    %1 = tg.tanh %0 : tensor<8xf32>
    amprt.yield %1 : tensor<8xf32>
  }
  return %y : tensor<8xf32>
}

// CHECK-LABEL: func.func @strided_product
// CHECK: amprt.strided_batch_matmul %{{.*}} [0, 2, 3, 5, 4, 60, 4, 12, 1], %{{.*}} [0, 2, 3, 4, 5, 60, 4, 1, 12] into [0, 2, 3, 5, 5, 75, 25, 5, 1] : tensor<2x5x3x4xbf16>, tensor<2x5x3x4xbf16> -> tensor<2x3x5x5xbf16>
func.func @strided_product(%q: tensor<2x5x3x4xbf16>, %k: tensor<2x5x3x4xbf16>)
    -> tensor<2x3x5x5xbf16> {
  %s = amprt.strided_batch_matmul %q [0, 2, 3, 5, 4, 60, 4, 12, 1],
      %k [0, 2, 3, 4, 5, 60, 4, 1, 12] into [0, 2, 3, 5, 5, 75, 25, 5, 1]
      : tensor<2x5x3x4xbf16>, tensor<2x5x3x4xbf16> -> tensor<2x3x5x5xbf16>
  return %s : tensor<2x3x5x5xbf16>
}

// CHECK-LABEL: func.func @attention
// CHECK: amprt.attention %{{.*}} [0, 2, 3, 5, 4, 180, 4, 36, 1], %{{.*}} [12, 2, 3, 5, 4, 180, 4, 36, 1], %{{.*}} [24, 2, 3, 5, 4, 180, 4, 36, 1] into [0, 2, 3, 5, 4, 60, 4, 12, 1] {causal} : tensor<10x36xbf16>, tensor<10x36xbf16>, tensor<10x36xbf16> -> tensor<2x5x3x4xbf16>
// CHECK: amprt.attention_grad %{{.*}} [0, 2, 3, 5, 4, 180, 4, 36, 1], %{{.*}} [12, 2, 3, 5, 4, 180, 4, 36, 1], %{{.*}} [24, 2, 3, 5, 4, 180, 4, 36, 1], %{{.*}} [0, 2, 3, 5, 4, 60, 4, 12, 1] into [0, 2, 3, 5, 4, 60, 20, 4, 1], [0, 2, 3, 5, 4, 60, 4, 12, 1], [0, 2, 3, 5, 4, 60, 4, 12, 1] {scale = 5.000000e-01 : f64} : tensor<10x36xbf16>, tensor<10x36xbf16>, tensor<10x36xbf16>, tensor<2x5x3x4xbf16> -> tensor<2x3x5x4xbf16>, tensor<2x5x3x4xbf16>, tensor<2x5x3x4xbf16>
func.func @attention(%qkv: tensor<10x36xbf16>, %do: tensor<2x5x3x4xbf16>)
    -> (tensor<2x5x3x4xbf16>, tensor<2x3x5x4xbf16>, tensor<2x5x3x4xbf16>, tensor<2x5x3x4xbf16>) {
  %o = amprt.attention %qkv [0, 2, 3, 5, 4, 180, 4, 36, 1],
      %qkv [12, 2, 3, 5, 4, 180, 4, 36, 1], %qkv [24, 2, 3, 5, 4, 180, 4, 36, 1]
      into [0, 2, 3, 5, 4, 60, 4, 12, 1] {causal}
      : tensor<10x36xbf16>, tensor<10x36xbf16>, tensor<10x36xbf16> -> tensor<2x5x3x4xbf16>
  %dq, %dk, %dv = amprt.attention_grad %qkv [0, 2, 3, 5, 4, 180, 4, 36, 1],
      %qkv [12, 2, 3, 5, 4, 180, 4, 36, 1], %qkv [24, 2, 3, 5, 4, 180, 4, 36, 1],
      %do [0, 2, 3, 5, 4, 60, 4, 12, 1]
      into [0, 2, 3, 5, 4, 60, 20, 4, 1], [0, 2, 3, 5, 4, 60, 4, 12, 1],
      [0, 2, 3, 5, 4, 60, 4, 12, 1] {scale = 0.5}
      : tensor<10x36xbf16>, tensor<10x36xbf16>, tensor<10x36xbf16>, tensor<2x5x3x4xbf16>
      -> tensor<2x3x5x4xbf16>, tensor<2x5x3x4xbf16>, tensor<2x5x3x4xbf16>
  return %o, %dq, %dk, %dv : tensor<2x5x3x4xbf16>, tensor<2x3x5x4xbf16>, tensor<2x5x3x4xbf16>, tensor<2x5x3x4xbf16>
}
