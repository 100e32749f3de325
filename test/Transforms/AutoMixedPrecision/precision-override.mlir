// amp.precision on an op wins over every list.
// RUN: amp-opt %s --allow-unregistered-dialect --amp-auto-mixed-precision | FileCheck %s

// CHECK-LABEL: func.func @override
// A matmul forced to f32 stays f32 and behaves like a deny op.
// CHECK: tg.matmul {{.*}} {amp.precision = "f32"} : tensor<32x32xf32>
// A deny op forced to f16 runs in f16.
// CHECK: tg.exp {{.*}} {amp.precision = "f16"} : tensor<32x32xf16>
// An op forced to bf16 in an f16 graph runs in bf16, with its own casts.
// CHECK: tg.matmul {{.*}} {amp.precision = "bf16"} : tensor<32x32xbf16>
// An unknown op forced to f16 joins too.
// CHECK: "test.op"({{.*}}) {amp.precision = "f16"} : (tensor<32x32xf16>) -> tensor<32x32xf16>
func.func @override(%x: tensor<32x32xf32>) -> (tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) {
  %a = tg.matmul %x, %x {amp.precision = "f32"} : tensor<32x32xf32>
  %b = tg.exp %x {amp.precision = "f16"} : tensor<32x32xf32>
  %c = tg.matmul %x, %x {amp.precision = "bf16"} : tensor<32x32xf32>
  %d = "test.op"(%x) {amp.precision = "f16"} : (tensor<32x32xf32>) -> tensor<32x32xf32>
  return %a, %b, %c, %d : tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>
}
