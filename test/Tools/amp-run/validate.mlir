// amp-run --validate runs the f16 step beside the f32 step, judges every op
// the pass put in f16 (fed its f32 inputs), and writes both fixes. On a
// model built to overflow f16 it names the square first, and the square's
// consumer as failing because of its input; the plain f16 run stops with a
// message that points at --validate; both fixes then train the model with
// no skipped step (from a loss scale that needs no back-off) to the f32
// accuracy. The examples raise no failure at the defaults.
// RUN: rm -rf %t && mkdir -p %t
// RUN: not amp-run %S/Inputs/square-features.mlir --data=fashion-mnist --lr=0.003 --steps=50 2>&1 | FileCheck %s --check-prefix=STOPS
// RUN: amp-run %S/Inputs/square-features.mlir --data=fashion-mnist --validate=3 --validate-fix=%t/lists.json --validate-annotate=%t/fixed.mlir --report=%t/report.json 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=LISTS < %t/lists.json
// RUN: FileCheck %s --check-prefix=REPORT < %t/report.json
// RUN: FileCheck %s --check-prefix=ANNOTATED < %t/fixed.mlir
// RUN: amp-run %S/Inputs/square-features.mlir --data=fashion-mnist --precision=f32 --lr=0.003 --epochs=1 --report=%t/f32.json 2>/dev/null
// RUN: amp-run %S/Inputs/square-features.mlir --data=fashion-mnist --lists-file=%t/lists.json --init-scale=1024 --lr=0.003 --epochs=1 --report=%t/lists-run.json 2>/dev/null
// RUN: %python %S/check_validate_fix.py %t/f32.json %t/lists-run.json | FileCheck %s --check-prefix=FIXED
// RUN: amp-run %t/fixed.mlir --data=fashion-mnist --init-scale=1024 --lr=0.003 --epochs=1 --report=%t/annotated-run.json 2>/dev/null
// RUN: %python %S/check_validate_fix.py %t/f32.json %t/annotated-run.json | FileCheck %s --check-prefix=FIXED
// RUN: amp-run %t/fixed.mlir --data=fashion-mnist --validate=3 2>&1 | FileCheck %s --check-prefix=CLEAN
// RUN: amp-run %S/../../../python-bindings-free-examples/mlp_adam.mlir --data=fashion-mnist --validate 2>&1 | FileCheck %s --check-prefix=CLEAN
// RUN: amp-run %S/../../../python-bindings-free-examples/cnn.mlir --data=fashion-mnist --validate 2>&1 | FileCheck %s --check-prefix=CLEAN
// RUN: amp-run %S/../../../python-bindings-free-examples/transformer_block.mlir --data=fashion-mnist --validate 2>&1 | FileCheck %s --check-prefix=CLEAN
// RUN: amp-run %S/../../../python-bindings-free-examples/mlp_adam.mlir --data=fashion-mnist --precision=bf16 --validate 2>&1 | FileCheck %s --check-prefix=CLEAN
// RUN: amp-run %S/../../../python-bindings-free-examples/cnn.mlir --data=fashion-mnist --precision=bf16 --validate 2>&1 | FileCheck %s --check-prefix=CLEAN
// RUN: amp-run %S/../../../python-bindings-free-examples/transformer_block.mlir --data=fashion-mnist --precision=bf16 --validate 2>&1 | FileCheck %s --check-prefix=CLEAN

// STOPS: the loss is NaN in the f16 step and loss scaling does not explain it
// STOPS-SAME: Run with --validate to find the ops that break in f16

// CHECK: validation: 3 f16 steps beside f32
// CHECK-NEXT: #
// CHECK-NEXT: 1 FAIL tg.square f16 {{.*}} square-features.mlir:24:8
// CHECK-NEXT: values overflow f16
// CHECK: FAIL tg.mul f16 {{.*}} square-features.mlir:25:9
// CHECK-NEXT: values overflow f16; its f32 inputs do not fit f16
// CHECK: ok tg.matmul
// CHECK: end to end: loss scaling skipped all 3 steps
// CHECK: 4 op(s) fail in f16

// LISTS: "deny": [
// LISTS-NEXT: "tg.mul",
// LISTS-NEXT: "tg.square"
// LISTS-NEXT: ]

// REPORT: "validation": {
// REPORT: "failing_ops": 4,
// REPORT: "ops": [
// REPORT: "op": "tg.square",
// REPORT: "verdict": "fail"

// ANNOTATED: tg.square %{{.*}} {amp.precision = "f32"}
// ANNOTATED: tg.mul %{{.*}} {amp.precision = "f32"}
// ANNOTATED: tg.square %{{.*}} {amp.precision = "f32"}
// ANNOTATED: tg.mul %{{.*}} {amp.precision = "f32"}

// FIXED: ok: f32 {{.*}} skipped 0

// CLEAN-NOT: FAIL
// CLEAN: every op holds in {{b?f16}}
