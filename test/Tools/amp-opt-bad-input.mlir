// amp-opt rejects malformed input with a clear diagnostic and a non-zero
// exit, never a crash.
// RUN: split-file %s %t
// RUN: not amp-opt %t/truncated.mlir 2>&1 | FileCheck %s --check-prefix=TRUNC
// RUN: not amp-opt %t/unknown-op.mlir 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not amp-opt %t/wrong-shape.mlir 2>&1 | FileCheck %s --check-prefix=SHAPE
// RUN: not amp-opt %t/truncated.mlir --no-such-option 2>&1 | FileCheck %s --check-prefix=OPTION
// RUN: not amp-opt %t/does-not-exist.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not amp-opt %t/valid.mlir --pass-pipeline='builtin.module(no-such-pass)' 2>&1 | FileCheck %s --check-prefix=PASS
// RUN: not amp-opt %t/garbage.mlir 2>&1 | FileCheck %s --check-prefix=GARBAGE

// TRUNC: truncated.mlir:{{[0-9]+}}:{{[0-9]+}}: error: expected
// UNKNOWN: unknown-op.mlir:2:8: error: custom op 'tg.softplus' is unknown
// SHAPE: wrong-shape.mlir:2:8: error: 'tg.matmul' op contracting dimensions differ
// OPTION: Unknown command line argument '--no-such-option'
// MISSING: cannot open input file '{{.*}}does-not-exist.mlir': No such file or directory
// PASS: 'no-such-pass' does not refer to a registered pass
// GARBAGE: garbage.mlir:1:1: error: custom op 'this' is unknown

//--- truncated.mlir
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = tg.relu %x : tensor<4x

//--- unknown-op.mlir
func.func @f(%x: tensor<4xf32>) {
  %y = tg.softplus %x : tensor<4xf32>
  return
}

//--- wrong-shape.mlir
func.func @f(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) {
  %c = tg.matmul %a, %b : tensor<4x8xf32>
  return
}

//--- valid.mlir
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = tg.relu %x : tensor<4xf32>
  return %y : tensor<4xf32>
}

//--- garbage.mlir
this is not MLIR at all
