// A device step returns once its work is queued; each step is timed to the
// end of that work. On an emulated device whose synchronising calls wait
// 50 ms, as a GPU still running the step would, every step's time_ms is at
// least 50, and train_seconds and samples/s are made of those times.
// RUN: %emulated_device env AMPRT_EMULATED_SYNC_MS=50 amp-run %S/../../../python-bindings-free-examples/mlp_adam.mlir --data=synthetic --steps=3 --report=%t.json --device=cuda
// RUN: %python %S/check_step_time.py %t.json 50 | FileCheck %s
// CHECK: ok: 3 steps, each at least 50 ms
