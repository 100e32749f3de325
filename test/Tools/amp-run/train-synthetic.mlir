// amp-run compiles, JITs and trains a step on synthetic data in every
// precision; the loss falls and the report holds the per-step record.
// RUN: amp-run %S/../../../python-bindings-free-examples/mlp_adam.mlir --precision=f32 --steps=60 --lr=0.002 --log-every=20 --report=%t.f32.json 2>&1 | FileCheck %s --check-prefix=LOG
// RUN: FileCheck %s --input-file=%t.f32.json --check-prefix=REPORT
// RUN: amp-run %S/../../../python-bindings-free-examples/mlp_adam.mlir --precision=f16 --steps=60 --lr=0.002 --log-every=20 --report=%t.f16.json 2>&1 | FileCheck %s --check-prefix=LOG
// RUN: amp-run %S/../../../python-bindings-free-examples/mlp_adam.mlir --precision=bf16 --steps=20 --lr=0.002 --log-every=20 2>&1 | FileCheck %s --check-prefix=LOG
// RUN: %python %S/check_report.py %t.f32.json %t.f16.json

// LOG: step 20/{{[0-9]+}}  loss {{[0-9.]+}}
// LOG: test accuracy {{0\.[0-9]+}} (1024 examples)
// REPORT: "precision": "f32"
// REPORT: "batch": 32
// REPORT: "final_accuracy":
// The per-step records come last, one a line.
// REPORT: "per_step": [
// REPORT-NEXT: {"step":0,"loss":{{[0-9.e+-]+}},"skipped":false,"time_ms":
