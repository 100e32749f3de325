// Dynamic loss scaling for real: with init-scale far too high, the first
// f16 steps overflow and are skipped, the scale backs off, training
// recovers, and no step ever applies an inf or NaN update.
// RUN: amp-run %S/../../../python-bindings-free-examples/mlp_adam.mlir --precision=f16 --init-scale=16777216 --steps=40 --lr=0.002 --log-every=40 --report=%t.json 2>&1 | FileCheck %s
// RUN: %python %S/check_skips.py %t.json

// CHECK: step 40/40
// CHECK-SAME: skipped {{[1-9]}}
// CHECK: test accuracy
