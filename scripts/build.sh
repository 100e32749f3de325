#!/usr/bin/env bash
#===- scripts/build.sh - Set up, configure and build amp -----------------===#
#
# Idempotent: installs missing packages, configures once, then lets ninja
# rebuild only what changed. BUILD_DIR overrides the build directory.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}

"$root/scripts/setup.sh"

if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    -DMLIR_LINK_MLIR_DYLIB=ON
fi
ninja -C "$build"
