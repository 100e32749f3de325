#!/usr/bin/env bash
#===- under-onednn-isa.sh - The runtime's tests on one oneDNN family ------===#
#
# Usage: under-onednn-isa.sh FAMILY TEST_BINARY
# Runs every runtime test with oneDNN capped to FAMILY (ONEDNN_MAX_CPU_ISA),
# so one machine exercises the kernels that other CPUs pick. Exits 77
# (ctest's skip) when the CPU lacks FAMILY, as CpuKernels.OneDnnRunsTheCappedFamily
# finds it, and fails when oneDNN ignores the cap.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
family=$1 tests=$2
export ONEDNN_MAX_CPU_ISA=$family
probe=$("$tests" --gtest_filter=CpuKernels.OneDnnRunsTheCappedFamily 2>&1) || {
  echo "$probe"
  exit 1
}
if grep -q '^\[  SKIPPED \] CpuKernels' <<<"$probe"; then
  grep -m1 'lacks\|no oneDNN' <<<"$probe" || true
  exit 77
fi
exec "$tests"
