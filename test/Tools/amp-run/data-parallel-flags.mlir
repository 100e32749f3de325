// amp-run's data-parallel flags: bad values are clear errors, and one
// process compiled data-parallel trains exactly as without (the all-reduce
// of one rank is a copy; the seed is divided by 1).
//
// RUN: not amp-run %amp_src/python-bindings-free-examples/mlp_adam.mlir --grad-comm=f8 2>&1 | FileCheck %s --check-prefix=WIRE
// RUN: not amp-run %amp_src/python-bindings-free-examples/mlp_adam.mlir --comm=gloo 2>&1 | FileCheck %s --check-prefix=COMM
// RUN: not amp-run %amp_src/python-bindings-free-examples/mlp_adam.mlir --comm=nccl --device=cpu 2>&1 | FileCheck %s --check-prefix=NCCLCPU
// RUN: not amp-run %amp_src/python-bindings-free-examples/mlp_adam.mlir --comm-timeout=0 2>&1 | FileCheck %s --check-prefix=TIMEOUT
// RUN: not amp-run %amp_src/python-bindings-free-examples/mlp_adam.mlir --bucket-bytes=0 2>&1 | FileCheck %s --check-prefix=BUCKET
// RUN: not amp-run %amp_src/python-bindings-free-examples/mlp_adam.mlir --inject-fault=crash@0:1 2>&1 | FileCheck %s --check-prefix=FAULT
// RUN: not amp-run %amp_src/python-bindings-free-examples/mlp_adam.mlir --inject-fault=exit@1:1 2>&1 | FileCheck %s --check-prefix=NORANK
// RUN: env AMPRT_MPI_LIBRARY=/nonexistent/libamprt_mpi.so not amp-run %amp_src/python-bindings-free-examples/mlp_adam.mlir --comm=mpi 2>&1 | FileCheck %s --check-prefix=NOMPI

// WIRE: amp-run: error: --grad-comm must be f32, f16 or bf16, got 'f8'
// COMM: amp-run: error: --comm must be auto, self, mpi or nccl, got 'gloo'
// NCCLCPU: amp-run: error: --comm=nccl all-reduces CUDA tensors: it needs --device=cuda (on the CPU, use --comm=mpi)
// TIMEOUT: amp-run: error: --comm-timeout must be a finite number of seconds > 0
// BUCKET: amp-run: error: --bucket-bytes must be >= 1
// FAULT: amp-run: error: --inject-fault must be KIND@RANK:STEP with KIND inf, exit, hang or save-exit (e.g. inf@1:3), got 'crash@0:1'
// NORANK: amp-run: error: --inject-fault names rank 1 of a job of 1
// NOMPI: amp-run: error: --comm=mpi: amprt_comm_init: the MPI transport did not load (/nonexistent/libamprt_mpi.so: cannot open shared object file

// RUN: amp-run %amp_src/python-bindings-free-examples/mlp_adam.mlir --precision=f16 --steps=30 --report=%t.plain.json 2>/dev/null
// RUN: amp-run %amp_src/python-bindings-free-examples/mlp_adam.mlir --precision=f16 --steps=30 --data-parallel --report=%t.parallel.json 2>/dev/null
// RUN: %python %S/check_data_parallel.py identical %t.plain.json %t.parallel.json | FileCheck %s --check-prefix=SAME
// SAME: identical: 30 steps and the final parameters
