// With the CUDA backend built but no GPU, --device=cuda says so and fails.
// REQUIRES: cuda-backend
// UNSUPPORTED: cuda-device
// RUN: not amp-run %S/../../../python-bindings-free-examples/mlp_adam.mlir --device=cuda --steps=1 2>&1 | FileCheck %s

// CHECK: amp-run: error: --device=cuda: amprt_context_create: no CUDA device
