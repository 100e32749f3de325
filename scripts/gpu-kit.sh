#!/usr/bin/env bash
#===- scripts/gpu-kit.sh - Make the GPU kit ------------------------------===#
#
# scripts/gpu-kit.sh DIR writes one folder (at most 48 MiB, no LLVM or
# MLIR in it) that DIR/run.sh OUT builds, tests and measures on a GPU
# machine with CMake, a C++ compiler, the CUDA toolkit and Python alone.
# Builds amp first when it is not built (scripts/build.sh). BUILD_DIR
# overrides the build directory. See docs/gpu.md.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
if [ $# -ne 1 ]; then
  echo "usage: $0 DIR" >&2
  exit 2
fi
if [ ! -x "$build/bin/amp-run" ]; then
  "$root/scripts/build.sh"
fi
exec python3 "$root/kit/make_kit.py" "$root" "$build" "$1"
