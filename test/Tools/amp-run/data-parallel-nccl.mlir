// --comm=nccl loads the NCCL transport (libamprt_nccl.so, built with the
// CUDA toolkit's NCCL) and MPI; without the library it says which file is
// missing. Running it needs GPUs (two or more: NCCL takes one per rank);
// on a machine without one, the CUDA context is refused next.
//
// REQUIRES: cuda-backend
// UNSUPPORTED: sanitizers, cuda-device
// RUN: env AMPRT_NCCL_LIBRARY=/nonexistent/libamprt_nccl.so not amp-run %amp_src/python-bindings-free-examples/mlp_adam.mlir --comm=nccl --device=cuda 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: test -f %amp_lib/libamprt_nccl.so
// RUN: not amp-run %amp_src/python-bindings-free-examples/mlp_adam.mlir --comm=nccl --device=cuda 2>&1 | FileCheck %s --check-prefix=LOADED

// MISSING: amp-run: error: --comm=nccl: amprt_comm_init: the NCCL transport did not load (/nonexistent/libamprt_nccl.so: cannot open shared object file: No such file or directory); NCCL needs libnccl.so.2
// LOADED-NOT: transport did not load
// LOADED: amp-run: error: --device=cuda:
