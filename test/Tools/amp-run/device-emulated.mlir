// The device path end to end: each example model trains with --device=cuda
// on the host-emulated device (the CUDA backend's op code run on the host;
// contractions through the CPU backend) exactly as on the CPU: same losses,
// loss scales, skipped steps, accuracy and activation memory. Dynamic loss
// scaling decides on the device side (nothing read back) and still skips
// the overflowing first steps. The device has no fused attention kernel:
// its amprt_attention runs the unfused ops inside the call. The
// transformer's attention (28 keys) is fused on the device run only with
// attention-min-keys lowered, and its CPU run is lowered with
// fuse-attention=0 to run those same ops (the fused CPU kernel keeps bf16
// scores in f32; Models/*attention* check it): the same losses as the
// device's fused op (whose scores are the call's temporaries, not the
// step's buffers) and as its unfused ops.
// RUN: amp-run %S/../../../python-bindings-free-examples/mlp_adam.mlir --precision=f16 --init-scale=16777216 --steps=12 --lr=0.002 --log-every=12 --report=%t.mlp.cpu.json --device=cpu
// RUN: %emulated_device amp-run %S/../../../python-bindings-free-examples/mlp_adam.mlir --precision=f16 --init-scale=16777216 --steps=12 --lr=0.002 --log-every=12 --report=%t.mlp.cuda.json --device=cuda 2>&1 | FileCheck %s
// RUN: %python %S/check_same_run.py %t.mlp.cpu.json %t.mlp.cuda.json | FileCheck %s --check-prefix=SKIPS
// RUN: amp-run %S/../../../python-bindings-free-examples/cnn.mlir --precision=f16 --steps=4 --log-every=4 --report=%t.cnn.cpu.json --device=cpu
// RUN: %emulated_device amp-run %S/../../../python-bindings-free-examples/cnn.mlir --precision=f16 --steps=4 --log-every=4 --report=%t.cnn.cuda.json --device=cuda
// RUN: %python %S/check_same_run.py %t.cnn.cpu.json %t.cnn.cuda.json
// RUN: amp-run %S/../../../python-bindings-free-examples/transformer_block.mlir --precision=bf16 --steps=4 --log-every=4 --report=%t.tf.cpu.json --device=cpu --lower-options=fuse-attention=0
// RUN: %emulated_device amp-run %S/../../../python-bindings-free-examples/transformer_block.mlir --precision=bf16 --steps=4 --log-every=4 --report=%t.tf.cuda.json --device=cuda --lower-options=attention-min-keys=16
// RUN: %python %S/check_same_run.py %t.tf.cpu.json %t.tf.cuda.json --not-memory
// RUN: %emulated_device amp-run %S/../../../python-bindings-free-examples/transformer_block.mlir --precision=bf16 --steps=4 --log-every=4 --report=%t.tf.cuda.apart.json --device=cuda --lower-options=fuse-attention=0
// RUN: %python %S/check_same_run.py %t.tf.cpu.json %t.tf.cuda.apart.json

// CHECK: step 12/12
// CHECK-SAME: skipped {{[1-9]}}
// SKIPS: ok: same run, 12 steps, skipped {{[1-9]}}
