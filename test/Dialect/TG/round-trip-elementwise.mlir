// Round trip of the elementwise tg ops, custom and generic form.
// RUN: amp-opt %s | amp-opt | FileCheck %s
// RUN: amp-opt %s --mlir-print-op-generic | amp-opt | FileCheck %s

// CHECK-LABEL: func.func @unary
func.func @unary(%x: tensor<4x8xf32>, %h: tensor<4x8xf16>, %i: tensor<4x8xi32>) {
  // CHECK: tg.neg %{{.*}} : tensor<4x8xf32>
  %neg = tg.neg %x : tensor<4x8xf32>
  // CHECK: tg.abs %{{.*}} : tensor<4x8xf32>
  %abs = tg.abs %x : tensor<4x8xf32>
  // CHECK: tg.exp %{{.*}} : tensor<4x8xf32>
  %exp = tg.exp %x : tensor<4x8xf32>
  // CHECK: tg.log %{{.*}} : tensor<4x8xf32>
  %log = tg.log %x : tensor<4x8xf32>
  // CHECK: tg.sqrt %{{.*}} : tensor<4x8xf32>
  %sqrt = tg.sqrt %x : tensor<4x8xf32>
  // CHECK: tg.silu %{{.*}} : tensor<4x8xf16>
  %silu = tg.silu %h : tensor<4x8xf16>
  // CHECK: tg.rsqrt %{{.*}} : tensor<4x8xf32>
  %rsqrt = tg.rsqrt %x : tensor<4x8xf32>
  // CHECK: tg.square %{{.*}} : tensor<4x8xf32>
  %square = tg.square %x : tensor<4x8xf32>
  // CHECK: tg.reciprocal %{{.*}} : tensor<4x8xf32>
  %reciprocal = tg.reciprocal %x : tensor<4x8xf32>
  // CHECK: tg.tanh %{{.*}} : tensor<4x8xf32>
  %tanh = tg.tanh %x : tensor<4x8xf32>
  // CHECK: tg.sigmoid %{{.*}} : tensor<4x8xf32>
  %sigmoid = tg.sigmoid %x : tensor<4x8xf32>
  // CHECK: tg.relu %{{.*}} : tensor<4x8xf32>
  %relu = tg.relu %x : tensor<4x8xf32>
  // CHECK: tg.gelu %{{.*}} : tensor<4x8xf32>
  %gelu = tg.gelu %x : tensor<4x8xf32>
  // CHECK: tg.erf %{{.*}} : tensor<4x8xf32>
  %erf = tg.erf %x : tensor<4x8xf32>
  // CHECK: tg.neg %{{.*}} : tensor<4x8xi32>
  %ni = tg.neg %i : tensor<4x8xi32>
  // CHECK: tg.abs %{{.*}} : tensor<4x8xi32>
  %ai = tg.abs %i : tensor<4x8xi32>
  // CHECK: tg.exp %{{.*}} : tensor<4x8xf16>
  %eh = tg.exp %h : tensor<4x8xf16>
  // CHECK: tg.leaky_relu %{{.*}} : tensor<4x8xf32>
  %lr0 = tg.leaky_relu %x : tensor<4x8xf32>
  // CHECK: tg.leaky_relu %{{.*}} {alpha = 2.000000e-01 : f64} : tensor<4x8xf32>
  %lr1 = tg.leaky_relu %x {alpha = 0.2 : f64} : tensor<4x8xf32>
  return
}

// CHECK-LABEL: func.func @binary
func.func @binary(%a: tensor<4x8xf32>, %b: tensor<8xf32>, %s: tensor<f32>, %c: tensor<4x1xf32>, %i: tensor<4x8xi64>) {
  // CHECK: tg.add %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8xf32>
  %add = tg.add %a, %b : tensor<4x8xf32>, tensor<8xf32>
  // CHECK: tg.sub %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8xf32>
  %sub = tg.sub %a, %b : tensor<4x8xf32>, tensor<8xf32>
  // CHECK: tg.mul %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8xf32>
  %mul = tg.mul %a, %b : tensor<4x8xf32>, tensor<8xf32>
  // CHECK: tg.div %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8xf32>
  %div = tg.div %a, %b : tensor<4x8xf32>, tensor<8xf32>
  // CHECK: tg.pow %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8xf32>
  %pow = tg.pow %a, %b : tensor<4x8xf32>, tensor<8xf32>
  // CHECK: tg.maximum %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8xf32>
  %maximum = tg.maximum %a, %b : tensor<4x8xf32>, tensor<8xf32>
  // CHECK: tg.minimum %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8xf32>
  %minimum = tg.minimum %a, %b : tensor<4x8xf32>, tensor<8xf32>
  // CHECK: %[[SAME:.*]] = tg.add %{{.*}}, %{{.*}} : tensor<4x8xf32>{{$}}
  %same = tg.add %a, %a : tensor<4x8xf32>
  // CHECK: tg.mul %[[SAME]], %{{.*}} : tensor<4x8xf32>, tensor<f32>
  %scalar = tg.mul %same, %s : tensor<4x8xf32>, tensor<f32>
  // CHECK: tg.sub %{{.*}}, %{{.*}} : tensor<4x1xf32>, tensor<8xf32>
  %outer = tg.sub %c, %b : tensor<4x1xf32>, tensor<8xf32>
  // CHECK: tg.add %{{.*}}, %{{.*}} : tensor<4x8xi64>
  %ints = tg.add %i, %i : tensor<4x8xi64>
  return
}

// CHECK-LABEL: func.func @compare_select
func.func @compare_select(%a: tensor<4x8xf32>, %z: tensor<f32>) -> tensor<4x8xf32> {
  // CHECK: %[[M:.*]] = tg.compare "gt", %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<f32>
  %m = tg.compare "gt", %a, %z : tensor<4x8xf32>, tensor<f32>
  // CHECK: tg.compare "eq", %{{.*}}, %{{.*}} : tensor<4x8xf32>
  %e = tg.compare "eq", %a, %a : tensor<4x8xf32>
  // CHECK: tg.select %[[M]], %{{.*}}, %{{.*}} : tensor<4x8xi1>, tensor<4x8xf32>, tensor<f32>
  %s = tg.select %m, %a, %z : tensor<4x8xi1>, tensor<4x8xf32>, tensor<f32>
  // CHECK: tg.is_finite %{{.*}} : tensor<4x8xf32>
  %f = tg.is_finite %s : tensor<4x8xf32>
  %t = tg.select %f, %s, %a : tensor<4x8xi1>, tensor<4x8xf32>
  return %t : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @activation_grads
func.func @activation_grads(%dy: tensor<4x8xf32>, %v: tensor<4x8xf32>) {
  // CHECK: tg.relu_grad %{{.*}}, %{{.*}} : tensor<4x8xf32>
  %0 = tg.relu_grad %dy, %v : tensor<4x8xf32>
  // CHECK: tg.gelu_grad %{{.*}}, %{{.*}} : tensor<4x8xf32>
  %1 = tg.gelu_grad %dy, %v : tensor<4x8xf32>
  // CHECK: tg.tanh_grad %{{.*}}, %{{.*}} : tensor<4x8xf32>
  %2 = tg.tanh_grad %dy, %v : tensor<4x8xf32>
  // CHECK: tg.sigmoid_grad %{{.*}}, %{{.*}} : tensor<4x8xf32>
  %3 = tg.sigmoid_grad %dy, %v : tensor<4x8xf32>
  // CHECK: tg.leaky_relu_grad %{{.*}}, %{{.*}} {alpha = 1.000000e-01 : f64} : tensor<4x8xf32>
  %4 = tg.leaky_relu_grad %dy, %v {alpha = 0.1 : f64} : tensor<4x8xf32>
  return
}
