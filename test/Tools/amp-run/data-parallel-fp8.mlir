// FP8 with delayed scaling under mpirun: each step's amaxes are reduced with
// "max" over the ranks before they enter the histories, so both ranks hold
// the histories one process with the global batch would hold and end with
// the same scales, largest amaxes and saturated-step counts (and the same
// parameters). With --reduce-amax=false each rank records its own half
// batch's activation and gradient amaxes, and after 40 steps their scales
// differ: the check below fails, which shows the collective is what makes
// them agree.
//
// REQUIRES: mpi
// UNSUPPORTED: sanitizers
// RUN: rm -rf %t && mkdir -p %t
// RUN: %mpirun 2 amp-run %amp_src/python-bindings-free-examples/mlp_adam.mlir --precision=fp8 --data=fashion-mnist --steps=40 --report=%t/fp8-rank{rank}.json 2>/dev/null
// RUN: %python %S/check_data_parallel.py ranks-agree %t/fp8-rank0.json %t/fp8-rank1.json | FileCheck %s --check-prefix=AGREE
// RUN: FileCheck %s --check-prefix=REPORT --input-file=%t/fp8-rank1.json
// RUN: %mpirun 2 amp-run %amp_src/python-bindings-free-examples/mlp_adam.mlir --precision=fp8 --data=fashion-mnist --steps=40 --reduce-amax=false --report=%t/own-rank{rank}.json 2>/dev/null
// RUN: not %python %S/check_data_parallel.py ranks-agree %t/own-rank0.json %t/own-rank1.json 2>&1 | FileCheck %s --check-prefix=OWN

// AGREE: 2 ranks agree on 40 steps and 6 FP8 scales and the final parameters

// REPORT: "data_parallel": {
// REPORT-DAG: "rank": 1
// REPORT-DAG: "reduce_amax": true

// OWN: check_data_parallel: {{.*}}own-rank1.json: FP8 scale of argument {{[0-9]+}} is
