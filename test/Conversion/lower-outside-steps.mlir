// RUN: amp-opt %s --amp-lower-to-runtime | FileCheck %s

// Only the module's func.func steps are lowered: tensor ops elsewhere (a
// module-level constant, an llvm.func's body) are left as they are.

// CHECK: %[[C:.*]] = arith.constant dense<1.000000e+00> : tensor<4xf32>
%c = arith.constant dense<1.0> : tensor<4xf32>

// CHECK-LABEL: func.func @step(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: !llvm.ptr) -> i32
// CHECK: call @amprt_exp(
func.func @step(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = tg.exp %x : tensor<4xf32>
  return %y : tensor<4xf32>
}

// CHECK-LABEL: llvm.func @elsewhere()
// CHECK-NEXT: arith.constant dense<2.000000e+00> : tensor<4xf32>
// CHECK-NEXT: tg.exp
// CHECK-NEXT: llvm.return
llvm.func @elsewhere() {
  %d = arith.constant dense<2.0> : tensor<4xf32>
  %e = tg.exp %d : tensor<4xf32>
  llvm.return
}
