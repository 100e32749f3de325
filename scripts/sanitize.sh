#!/usr/bin/env bash
#===- scripts/sanitize.sh - amp under AddressSanitizer and UBSan ---------===#
#
# Builds amp with clang 14 (Debian's; its runtimes come from
# libclang-rt-14-dev) under AddressSanitizer (with LeakSanitizer) and
# UndefinedBehaviorSanitizer, with libFuzzer linked into
# amp-pipeline-fuzzer, and runs every unit and lit test there. Any sanitizer
# report fails its test (-fno-sanitize-recover=all). Idempotent like
# build.sh; SANITIZE_BUILD_DIR overrides the build directory. On this 2-core
# machine: about 8 minutes from scratch, under 1 minute for the tests.
# Usage: scripts/sanitize.sh [--build-only TARGET...]  (fuzz.sh builds the
# fuzzer this way, without the tests).
#
#===----------------------------------------------------------------------===#
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SANITIZE_BUILD_DIR:-$root/build-sanitize}

"$root/scripts/setup.sh" clang-14 libclang-rt-14-dev libomp-14-dev

if [ ! -f "$build/build.ninja" ]; then
  CC=clang-14 CXX=clang++-14 cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    -DMLIR_LINK_MLIR_DYLIB=ON \
    "-DLLVM_USE_SANITIZER=Address;Undefined" \
    -DLLVM_USE_SANITIZE_COVERAGE=ON \
    -DAMP_ENABLE_CUDA=OFF
fi
if [ "${1:-}" = --build-only ]; then
  shift
  exec ninja -C "$build" "$@"
fi
ninja -C "$build"

# The packaged LLVM keeps some allocations for the process's life; report
# only leaks of memory nothing points to any more.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
cd "$build"
ctest --output-on-failure -j "$(nproc)"
