// A data-parallel job never hangs and never lets ranks disagree:
// - an inf in one rank's batch makes every rank skip that step and back off
//   the loss scale identically (the finite check is agreed by all ranks);
// - a rank that dies ends the job (the launcher sees it);
// - a rank that hangs makes the others' next collective fail after
//   --comm-timeout, naming it, and the job ends;
// - ranks that compiled different steps or flags stop before the first
//   step, every rank saying so.
//
// REQUIRES: mpi
// UNSUPPORTED: sanitizers
// RUN: rm -rf %t && mkdir -p %t
// RUN: %mpirun 2 amp-run %amp_src/python-bindings-free-examples/mlp_adam.mlir --precision=f16 --init-scale=1024 --steps=10 --inject-fault=inf@1:5 --report=%t/inf{rank}.json 2>/dev/null
// RUN: %python %S/check_data_parallel.py skipped 5 %t/inf0.json %t/inf1.json | FileCheck %s --check-prefix=SKIP
// RUN: %python %S/check_data_parallel.py ranks-agree %t/inf0.json %t/inf1.json | FileCheck %s --check-prefix=AGREE
//
// RUN: not timeout 120 %mpirun 2 amp-run %amp_src/python-bindings-free-examples/mlp_adam.mlir --steps=10 --inject-fault=exit@1:3 2>&1 | FileCheck %s --check-prefix=EXIT
// RUN: not timeout 120 %mpirun 2 amp-run %amp_src/python-bindings-free-examples/mlp_adam.mlir --steps=10 --comm-timeout=2 --inject-fault=hang@1:3 2>&1 | FileCheck %s --check-prefix=HANG
// RUN: not timeout 120 %mpirun 1 amp-run %amp_src/python-bindings-free-examples/mlp_adam.mlir --steps=5 : -np 1 amp-run %amp_src/python-bindings-free-examples/mlp_adam.mlir --steps=6 2>&1 | FileCheck %s --check-prefix=MISMATCH
// RUN: not timeout 120 %mpirun 2 amp-run %amp_src/python-bindings-free-examples/mlp_adam.mlir --validate 2>&1 | FileCheck %s --check-prefix=VALIDATE

// SKIP: step 5 skipped and the scale backed off in 2 reports
// AGREE: 2 ranks agree on 10 steps and the final parameters
// EXIT: amp-run: error: injected fault (--inject-fault): rank 1 exits with status 3, as a crashed rank would, at step 3
// HANG: amp-run: error: injected fault (--inject-fault): rank 1 hangs at step 3
// HANG: amp-run: error: rank 0: step 3 failed: amprt_all_reduce: all-to-all exchange did not complete within 2 s: another rank has died, hangs, or runs a different step
// MISMATCH: error: rank {{[01]}}: the ranks disagree on the compiled step and its flags
// VALIDATE: error: rank {{[01]}}: --validate compares steps in one process: run it without mpirun
