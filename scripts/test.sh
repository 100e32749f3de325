#!/usr/bin/env bash
#===- scripts/test.sh - Build amp and run every test ---------------------===#
#
# Runs ctest, which holds the lit suite and the unit tests; ctest's summary
# is the last thing printed.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}

"$root/scripts/build.sh"
cd "$build"
ctest --output-on-failure -j "$(nproc)"
