// IR from other front ends (linalg + arith + math on tensors) is coloured
// through the shipped external models: linalg.matmul takes f16 inputs and
// accumulates into its f32 init, math.exp stays f32, arith.addf between two
// contractions joins them.
// RUN: amp-opt %s --amp-auto-mixed-precision | FileCheck %s
// RUN: amp-opt %s --amp-auto-mixed-precision --linalg-generalize-named-ops | FileCheck %s --check-prefix=BODY

// CHECK-LABEL: func.func @upstream
// CHECK-SAME: (%[[A:.*]]: tensor<32x32xf32>, %[[B:.*]]: tensor<32x32xf32>)
// CHECK-DAG: %[[AH:.*]] = amp.cast %[[A]] : tensor<32x32xf32> to tensor<32x32xf16>
// CHECK-DAG: %[[BH:.*]] = amp.cast %[[B]] : tensor<32x32xf32> to tensor<32x32xf16>
// CHECK: %[[M:.*]] = linalg.matmul ins(%[[AH]], %[[BH]] : tensor<32x32xf16>, tensor<32x32xf16>) outs(%{{.*}} : tensor<32x32xf32>)
// The body widens the f16 inputs and accumulates in f32.
// BODY-LABEL: func.func @upstream
// BODY: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<32x32xf16>, tensor<32x32xf16>) outs(%{{.*}} : tensor<32x32xf32>)
// BODY: ^bb0(%[[X:.*]]: f16, %[[Y:.*]]: f16, %[[Z:.*]]: f32):
// BODY:   %[[XW:.*]] = arith.extf %[[X]] : f16 to f32
// BODY:   %[[YW:.*]] = arith.extf %[[Y]] : f16 to f32
// BODY:   %[[P:.*]] = arith.mulf %[[XW]], %[[YW]] : f32
// BODY:   arith.addf %[[Z]], %[[P]] : f32
// CHECK: %[[E:.*]] = math.exp %[[M]] : tensor<32x32xf32>
// CHECK: arith.addf %[[E]], %[[M]] : tensor<32x32xf32>
func.func @upstream(%a: tensor<32x32xf32>, %b: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<32x32xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<32x32xf32>) -> tensor<32x32xf32>
  %m = linalg.matmul ins(%a, %b : tensor<32x32xf32>, tensor<32x32xf32>) outs(%acc : tensor<32x32xf32>) -> tensor<32x32xf32>
  %e = math.exp %m : tensor<32x32xf32>
  %s = arith.addf %e, %m : tensor<32x32xf32>
  return %s : tensor<32x32xf32>
}

// tg and arith ops mix: arith.addf between two tg.matmuls is infer and
// joins them; math.tanh after the last one is infer and stays f32.
// CHECK-LABEL: func.func @mixed
// CHECK: tg.matmul {{.*}} : tensor<32x32xf16>
// CHECK: arith.addf {{.*}} : tensor<32x32xf16>
// CHECK: tg.matmul {{.*}} : tensor<32x32xf16>
// CHECK: math.tanh {{.*}} : tensor<32x32xf32>
func.func @mixed(%a: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %m = tg.matmul %a, %a : tensor<32x32xf32>
  %s = arith.addf %m, %a : tensor<32x32xf32>
  %n = tg.matmul %s, %a : tensor<32x32xf32>
  %t = math.tanh %n : tensor<32x32xf32>
  return %t : tensor<32x32xf32>
}
