// Bad options and lists are clear errors, never a crash.
// RUN: not amp-opt %s --amp-auto-mixed-precision="allow=tg.exp deny=tg.exp" 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: echo '{"deny": ["tg.matmul"]}' > %t.deny.json
// RUN: not amp-opt %s --amp-auto-mixed-precision="allow=tg.matmul lists-file=%t.deny.json" 2>&1 | FileCheck %s --check-prefix=TWICE-FILE
// RUN: echo '{"allow": ["tg.exp"], "deny": ["tg.exp"]}' > %t.both.json
// RUN: not amp-opt %s --amp-auto-mixed-precision="lists-file=%t.both.json" 2>&1 | FileCheck %s --check-prefix=TWICE-SAME-FILE
// RUN: echo '{"allow": [' > %t.bad.json
// RUN: not amp-opt %s --amp-auto-mixed-precision="lists-file=%t.bad.json" 2>&1 | FileCheck %s --check-prefix=NOTJSON
// RUN: echo '{"alow": []}' > %t.key.json
// RUN: not amp-opt %s --amp-auto-mixed-precision="lists-file=%t.key.json" 2>&1 | FileCheck %s --check-prefix=KEY
// RUN: not amp-opt %s --amp-auto-mixed-precision="lists-file=%t.missing.json" 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not amp-opt %s --amp-auto-mixed-precision="precision=fp4" 2>&1 | FileCheck %s --check-prefix=PRECISION
// RUN: not amp-opt %s --amp-auto-mixed-precision="level=aggressive" 2>&1 | FileCheck %s --check-prefix=LEVEL
// RUN: not amp-opt %s --amp-auto-mixed-precision="allow=matmul" 2>&1 | FileCheck %s --check-prefix=UNQUALIFIED
// RUN: not amp-opt %s --amp-auto-mixed-precision="colour=red" 2>&1 | FileCheck %s --check-prefix=OPTION
// RUN: not amp-opt %s --amp-auto-mixed-precision="report=/nonexistent-dir/r.json" 2>&1 | FileCheck %s --check-prefix=REPORT
// A lists-file nested a million deep (llvm::json would recurse as deep) and
// a FIFO (reading it would wait forever) are refused.
// RUN: %python -c "print('[' * 1000000)" > %t.deep.json
// RUN: not amp-opt %s --amp-auto-mixed-precision="lists-file=%t.deep.json" 2>&1 | FileCheck %s --check-prefix=DEEP
// RUN: rm -f %t.fifo.json && mkfifo %t.fifo.json
// RUN: not amp-opt %s --amp-auto-mixed-precision="lists-file=%t.fifo.json" 2>&1 | FileCheck %s --check-prefix=FIFO
// DEEP: error: amp-auto-mixed-precision: lists-file '{{.*}}deep.json' nests arrays or objects deeper than 64 levels
// FIFO: error: amp-auto-mixed-precision: cannot read lists-file '{{.*}}fifo.json': not a regular file (a directory, FIFO or device)

// TWICE: error: amp-auto-mixed-precision: 'tg.exp' is named in the allow list of the pass options and in the deny list of the pass options
// TWICE-FILE: error: amp-auto-mixed-precision: 'tg.matmul' is named in the allow list of the pass options and in the deny list of lists-file
// TWICE-SAME-FILE: error: amp-auto-mixed-precision: 'tg.exp' is named in the allow list of lists-file '{{.*}}' and in the deny list of lists-file
// NOTJSON: error: amp-auto-mixed-precision: lists-file '{{.*}}bad.json' is not valid JSON
// KEY: error: amp-auto-mixed-precision: lists-file '{{.*}}' has an unknown key "alow" (expected allow, infer, clear, deny)
// MISSING: error: amp-auto-mixed-precision: cannot read lists-file '{{.*}}missing.json': No such file or directory
// PRECISION: for the --precision option: Cannot find option named 'fp4'!
// LEVEL: for the --level option: Cannot find option named 'aggressive'!
// UNQUALIFIED: error: amp-auto-mixed-precision: 'matmul' in the pass options is not a fully qualified op name (dialect.op)
// OPTION: no such option colour
// REPORT: error: amp-auto-mixed-precision: cannot write report '/nonexistent-dir/r.json'

func.func @f(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %m = tg.matmul %x, %x : tensor<4x4xf32>
  return %m : tensor<4x4xf32>
}
