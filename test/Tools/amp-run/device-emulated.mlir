// The device path end to end: each example model trains with --device=cuda
// on the host-emulated device (the CUDA backend's op code run on the host;
// contractions through the CPU backend) exactly as on the CPU: same losses,
// loss scales, skipped steps, accuracy and activation memory. Dynamic loss
// scaling decides on the device side (nothing read back) and still skips
// the overflowing first steps.
// RUN: amp-run %S/../../../python-bindings-free-examples/mlp_adam.mlir --precision=f16 --init-scale=16777216 --steps=12 --lr=0.002 --log-every=12 --report=%t.mlp.cpu.json --device=cpu
// RUN: %emulated_device amp-run %S/../../../python-bindings-free-examples/mlp_adam.mlir --precision=f16 --init-scale=16777216 --steps=12 --lr=0.002 --log-every=12 --report=%t.mlp.cuda.json --device=cuda 2>&1 | FileCheck %s
// RUN: %python %S/check_same_run.py %t.mlp.cpu.json %t.mlp.cuda.json | FileCheck %s --check-prefix=SKIPS
// RUN: amp-run %S/../../../python-bindings-free-examples/cnn.mlir --precision=f16 --steps=4 --log-every=4 --report=%t.cnn.cpu.json --device=cpu
// RUN: %emulated_device amp-run %S/../../../python-bindings-free-examples/cnn.mlir --precision=f16 --steps=4 --log-every=4 --report=%t.cnn.cuda.json --device=cuda
// RUN: %python %S/check_same_run.py %t.cnn.cpu.json %t.cnn.cuda.json
// RUN: amp-run %S/../../../python-bindings-free-examples/transformer_block.mlir --precision=bf16 --steps=4 --log-every=4 --report=%t.tf.cpu.json --device=cpu
// RUN: %emulated_device amp-run %S/../../../python-bindings-free-examples/transformer_block.mlir --precision=bf16 --steps=4 --log-every=4 --report=%t.tf.cuda.json --device=cuda
// RUN: %python %S/check_same_run.py %t.tf.cpu.json %t.tf.cuda.json

// CHECK: step 12/12
// CHECK-SAME: skipped {{[1-9]}}
// SKIPS: ok: same run, 12 steps, skipped {{[1-9]}}
