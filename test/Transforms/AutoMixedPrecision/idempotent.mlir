// Running the pass twice changes nothing the second time, in f16 and bf16,
// on a whole training step.
// RUN: amp-opt %S/../../../python-bindings-free-examples/mlp_train_step.mlir --amp-auto-mixed-precision > %t.once
// RUN: amp-opt %t.once --amp-auto-mixed-precision > %t.twice
// RUN: diff %t.once %t.twice
// RUN: amp-opt %S/../../../python-bindings-free-examples/mlp_train_step.mlir --amp-auto-mixed-precision=precision=bf16 > %t.bf16.once
// RUN: amp-opt %t.bf16.once --amp-auto-mixed-precision=precision=bf16 > %t.bf16.twice
// RUN: diff %t.bf16.once %t.bf16.twice
// RUN: amp-opt %s --amp-auto-mixed-precision > %t.local.once
// RUN: amp-opt %t.local.once --amp-auto-mixed-precision > %t.local.twice
// RUN: diff %t.local.once %t.local.twice
// RUN: FileCheck %s --input-file=%t.local.twice

// CHECK-LABEL: func.func @twice
// CHECK-COUNT-2: amp.cast
// CHECK-NOT: amp.cast
func.func @twice(%x: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %m = tg.matmul %x, %x : tensor<32x32xf32>
  %r = tg.relu %m : tensor<32x32xf32>
  %e = tg.exp %r : tensor<32x32xf32>
  return %e : tensor<32x32xf32>
}
