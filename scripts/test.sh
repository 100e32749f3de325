#!/usr/bin/env bash
#===- scripts/test.sh - Build amp and run every test ---------------------===#
#
# Runs ctest, which holds the lit suite and the unit tests, in the normal
# build and then in the AddressSanitizer + UBSan build (scripts/sanitize.sh;
# AMP_SKIP_SANITIZE=1 skips that half). ctest's summary is the last thing
# printed.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}

"$root/scripts/build.sh"
(cd "$build" && ctest --output-on-failure -j "$(nproc)")
if [ "${AMP_SKIP_SANITIZE:-0}" != 1 ]; then
  echo "== the same tests under AddressSanitizer and UBSan"
  "$root/scripts/sanitize.sh"
fi
