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
// An output that cannot be written (a full disk) is an error, not an abort.
// RUN: not amp-opt %t/valid.mlir -o /dev/full 2>&1 | FileCheck %s --check-prefix=FULL
// RUN: not amp-opt %t/valid.mlir --amp-auto-mixed-precision=report=/dev/full -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT
// A failed run leaves an existing output file as it was (outputs are
// written whole, through a temporary file, or not at all).
// RUN: echo keep > %t/out.mlir
// RUN: not amp-opt %t/garbage.mlir -o %t/out.mlir 2>&1
// RUN: grep -x keep %t/out.mlir
// RUN: not ls %t/*.tmp-*
// Through a symlink the file it names is written and the link stays.
// RUN: ln -sf out.mlir %t/link.mlir && amp-opt %t/valid.mlir -o %t/link.mlir
// RUN: test -L %t/link.mlir && grep -q func.func %t/out.mlir
// A pass option value LLVM refuses is said once, with no empty error after.
// RUN: not amp-opt %t/valid.mlir --amp-auto-mixed-precision=fp8-margin=nan 2>&1 | FileCheck %s --check-prefix=VALUE --implicit-check-not=error
// RUN: not amp-opt %t/valid.mlir --pass-pipeline='builtin.module(amp-auto-mixed-precision{colour=red})' 2>&1 | FileCheck %s --check-prefix=UNKNOWN-OPTION
// Regions nested 20,000 deep parse and convert (the work runs on a large
// stack), where the main thread's stack would overflow.
// RUN: %python -c "n = 20000; print('func.func @f(%%p: i1) {\n' + 'scf.if %%p {\n' * n + '}\n' * n + 'return\n}')" > %t/deep.mlir
// RUN: amp-opt %t/deep.mlir --amp-auto-mixed-precision -o /dev/null
// A 10^10-element splat weight converts through its one value.
// RUN: amp-opt %t/splat.mlir --amp-auto-mixed-precision | FileCheck %s --check-prefix=SPLAT

// TRUNC: truncated.mlir:{{[0-9]+}}:{{[0-9]+}}: error: expected
// UNKNOWN: unknown-op.mlir:2:8: error: custom op 'tg.softplus' is unknown
// SHAPE: wrong-shape.mlir:2:8: error: 'tg.matmul' op contracting dimensions differ
// OPTION: Unknown command line argument '--no-such-option'
// MISSING: cannot open input file '{{.*}}does-not-exist.mlir': No such file or directory
// PASS: 'no-such-pass' does not refer to a registered pass
// GARBAGE: garbage.mlir:1:1: error: custom op 'this' is unknown
// FULL: amp-opt: cannot write '/dev/full': No space left on device
// REPORT: error: amp-auto-mixed-precision: cannot write report '/dev/full': No space left on device
// VALUE: amp-opt: for the --fp8-margin option: 'nan' value invalid for long argument!
// UNKNOWN-OPTION: amp-opt: no such option colour
// SPLAT: arith.constant dense<5.000000e-01> : tensor<100000x100000xf16>

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

//--- splat.mlir
func.func @f(%x: tensor<100000x100000xf32>) -> tensor<100000x100000xf32> {
  %c = arith.constant dense<0.5> : tensor<100000x100000xf32>
  %m = tg.matmul %x, %c : tensor<100000x100000xf32>
  return %m : tensor<100000x100000xf32>
}
