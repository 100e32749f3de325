// Optimizer updates compute in f32 only: a user list that moves one to
// allow cannot make it 16-bit; it stays f32 and the report says why.
// RUN: amp-opt %s --amp-auto-mixed-precision="allow=tg.sgd_update report=%t.json" | FileCheck %s
// RUN: FileCheck %s --input-file=%t.json --check-prefix=REPORT

// CHECK-LABEL: func.func @update
// CHECK: tg.sgd_update %arg1, %{{.*}}, %arg2 : tensor<32x32xf32>
// REPORT: "name": "tg.sgd_update",
// REPORT-NEXT: "location":
// REPORT-NEXT: "class": "allow",
// REPORT-NEXT: "precision": "f32",
// REPORT-NEXT: "reason": "cannot compute in f16"
func.func @update(%x: tensor<32x32xf32>, %w: tensor<32x32xf32>,
                  %lr: tensor<f32>) -> tensor<32x32xf32> {
  %g = tg.matmul %x, %x : tensor<32x32xf32>
  %n = tg.sgd_update %w, %g, %lr : tensor<32x32xf32>
  %m = tg.matmul %n, %n : tensor<32x32xf32>
  return %m : tensor<32x32xf32>
}
