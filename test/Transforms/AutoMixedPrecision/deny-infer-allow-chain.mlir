// exp -> relu -> sqrt -> relu -> matmul -> relu -> log -> relu -> (unknown)
// -> relu: deny spreads from exp through relu and sqrt (upstream of an infer
// op); only the relu before the matmul, the matmul and the relu after it
// turn f16, with exactly two casts.
// RUN: amp-opt %s --allow-unregistered-dialect --amp-auto-mixed-precision | FileCheck %s
// RUN: amp-opt %s --allow-unregistered-dialect --amp-auto-mixed-precision | FileCheck %s --check-prefix=COUNT

// CHECK-LABEL: func.func @chain
// CHECK: %[[E:.*]] = tg.exp %{{.*}} : tensor<32x32xf32>
// CHECK: %[[R1:.*]] = tg.relu %[[E]] : tensor<32x32xf32>
// CHECK: %[[S:.*]] = tg.sqrt %[[R1]] : tensor<32x32xf32>
// CHECK: %[[C1:.*]] = amp.cast %[[S]] : tensor<32x32xf32> to tensor<32x32xf16>
// CHECK: %[[R2:.*]] = tg.relu %[[C1]] : tensor<32x32xf16>
// CHECK: %[[M:.*]] = tg.matmul %[[R2]], %[[R2]] : tensor<32x32xf16>
// CHECK: %[[R3:.*]] = tg.relu %[[M]] : tensor<32x32xf16>
// CHECK: %[[C2:.*]] = amp.cast %[[R3]] : tensor<32x32xf16> to tensor<32x32xf32>
// CHECK: %[[L:.*]] = tg.log %[[C2]] : tensor<32x32xf32>
// CHECK: %[[R4:.*]] = tg.relu %[[L]] : tensor<32x32xf32>
// CHECK: %[[U:.*]] = "test.unknown"(%[[R4]]) : (tensor<32x32xf32>) -> tensor<32x32xf32>
// CHECK: tg.relu %[[U]] : tensor<32x32xf32>
// COUNT-COUNT-2: amp.cast
// COUNT-NOT: amp.cast
func.func @chain(%x: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %0 = tg.exp %x : tensor<32x32xf32>
  %1 = tg.relu %0 : tensor<32x32xf32>
  %2 = tg.sqrt %1 : tensor<32x32xf32>
  %3 = tg.relu %2 : tensor<32x32xf32>
  %4 = tg.matmul %3, %3 : tensor<32x32xf32>
  %5 = tg.relu %4 : tensor<32x32xf32>
  %6 = tg.log %5 : tensor<32x32xf32>
  %7 = tg.relu %6 : tensor<32x32xf32>
  %8 = "test.unknown"(%7) : (tensor<32x32xf32>) -> tensor<32x32xf32>
  %9 = tg.relu %8 : tensor<32x32xf32>
  return %9 : tensor<32x32xf32>
}
