// IR as other MLIR front ends emit it — linalg, arith and math on tensors,
// no tg at all — through --amp-auto-mixed-precision with the shipped
// external models: the contraction takes f16 inputs and accumulates into
// its f32 init; the exponential stays f32; the add between two
// contractions joins them.
//
// RUN: amp-opt %s --amp-auto-mixed-precision="report=%t.json" | FileCheck %s
// RUN: FileCheck %s --input-file=%t.json --check-prefix=REPORT

// CHECK-LABEL: func.func @dense_block
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<64x256xf16>, tensor<256x128xf16>) outs(%{{.*}} : tensor<64x128xf32>)
// CHECK: math.exp %{{.*}} : tensor<64x128xf32>
// REPORT: "name": "linalg.matmul"
// REPORT: "class": "allow"
// REPORT-NEXT: "precision": "f16"
// REPORT: "name": "math.exp"
// REPORT: "class": "deny"
func.func @dense_block(%x: tensor<64x256xf32>, %w: tensor<256x128xf32>) -> tensor<64x128xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<64x128xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<64x128xf32>) -> tensor<64x128xf32>
  %y = linalg.matmul ins(%x, %w : tensor<64x256xf32>, tensor<256x128xf32>) outs(%acc : tensor<64x128xf32>) -> tensor<64x128xf32>
  %e = math.exp %y : tensor<64x128xf32>
  %s = arith.addf %e, %y : tensor<64x128xf32>
  return %s : tensor<64x128xf32>
}
