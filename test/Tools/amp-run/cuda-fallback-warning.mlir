// A CUDA driver whose backend cannot be used is not "no GPU": with no
// --device, amp-run trains on the CPU and says why. (AMPRT_CUDA_LIBRARY
// naming a missing file stands in for a driver with a backend that does
// not load.)
// RUN: env AMPRT_CUDA_LIBRARY=%t.missing.so amp-run %S/../../../python-bindings-free-examples/mlp_adam.mlir --steps=1 --log-every=1 2>&1 | FileCheck %s
// RUN: env AMPRT_CUDA_LIBRARY=%t.missing.so not amp-run %S/../../../python-bindings-free-examples/mlp_adam.mlir --device=cuda --steps=1 2>&1 | FileCheck %s --check-prefix=ASKED
// CHECK: amp-run: warning: training on the CPU: a CUDA driver is present but no device is usable: this amp runtime has no CUDA backend ({{.*}}missing.so: cannot open shared object file
// CHECK: step 1/1
// ASKED: amp-run: error: --device=cuda: amprt_context_create: this amp runtime has no CUDA backend ({{.*}}missing.so
