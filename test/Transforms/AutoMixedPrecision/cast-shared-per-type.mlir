// One value wanted in several types gets one cast per type, shared by every
// user of that type, whether the value is f32 (an exp) or low (a matmul),
// and whichever type its first user wanted (the rewrite keeps the first
// cast of each op apart from the others).
// RUN: amp-opt %s --amp-auto-mixed-precision | FileCheck %s

// CHECK-LABEL: func.func @shared
// CHECK:      %[[E:.*]] = tg.exp %arg0 : tensor<32x32xf32>
// CHECK-NEXT: %[[EB:.*]] = amp.cast %[[E]] : tensor<32x32xf32> to tensor<32x32xbf16>
// CHECK-NEXT: %[[EH:.*]] = amp.cast %[[E]] : tensor<32x32xf32> to tensor<32x32xf16>
// CHECK-NOT:  amp.cast %[[E]]
// CHECK:      %[[A:.*]] = tg.matmul %[[EH]], %[[EH]] : tensor<32x32xf16>
// CHECK:      tg.matmul %[[EB]], %{{.*}} {amp.precision = "bf16"} : tensor<32x32xbf16>
// CHECK:      %[[C:.*]] = tg.matmul %[[A]], %[[EH]] : tensor<32x32xf16>
// CHECK-NEXT: %[[CF:.*]] = amp.cast %[[C]] : tensor<32x32xf16> to tensor<32x32xf32>
// CHECK-NEXT: %[[CB:.*]] = amp.cast %[[C]] : tensor<32x32xf16> to tensor<32x32xbf16>
// CHECK-NOT:  amp.cast %[[C]]
// CHECK:      tg.matmul %[[EB]], %[[CB]] {amp.precision = "bf16"}
// CHECK:      tg.exp %[[CF]] : tensor<32x32xf32>
// CHECK:      tg.log %[[CF]] : tensor<32x32xf32>
// CHECK:      tg.matmul %[[CB]], %[[CB]] {amp.precision = "bf16"}
// CHECK:      return {{.*}}, %[[E]] :
func.func @shared(%x: tensor<32x32xf32>) -> (tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) {
  %e = tg.exp %x : tensor<32x32xf32>
  %a = tg.matmul %e, %e : tensor<32x32xf32>
  %b = tg.matmul %e, %x {amp.precision = "bf16"} : tensor<32x32xf32>
  %c = tg.matmul %a, %e : tensor<32x32xf32>
  %d = tg.matmul %e, %c {amp.precision = "bf16"} : tensor<32x32xf32>
  %f = tg.exp %c : tensor<32x32xf32>
  %g = tg.log %c : tensor<32x32xf32>
  %h = tg.matmul %c, %c {amp.precision = "bf16"} : tensor<32x32xf32>
  return %b, %d, %f, %g, %h, %e : tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>
}
