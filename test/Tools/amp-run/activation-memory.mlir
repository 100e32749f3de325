// The report's peak activation bytes in f16 are at most 0.6x the f32 run's
// on the CNN and the transformer block (issue target), while the f32 master
// weights and optimizer state the step returns stay the same size.
// RUN: amp-run %S/../../../python-bindings-free-examples/cnn.mlir --precision=f32 --steps=2 --report=%t.cnn32.json 2>/dev/null
// RUN: amp-run %S/../../../python-bindings-free-examples/cnn.mlir --precision=f16 --steps=2 --report=%t.cnn16.json 2>/dev/null
// RUN: %python %S/check_memory.py %t.cnn32.json %t.cnn16.json 0.6 | FileCheck %s
// RUN: amp-run %S/../../../python-bindings-free-examples/transformer_block.mlir --precision=f32 --steps=2 --report=%t.tf32.json 2>/dev/null
// RUN: amp-run %S/../../../python-bindings-free-examples/transformer_block.mlir --precision=f16 --steps=2 --report=%t.tf16.json 2>/dev/null
// RUN: %python %S/check_memory.py %t.tf32.json %t.tf16.json 0.6 | FileCheck %s
// CHECK: ok: activation bytes f32 {{[0-9]+}}, f16 {{[0-9]+}}, ratio 0.{{[0-9]+}}
