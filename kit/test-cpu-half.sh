#!/usr/bin/env bash
#===- kit/test-cpu-half.sh - The GPU kit's CPU half, without the libraries -===#
#
# test-cpu-half.sh BUILD makes the GPU kit from BUILD's amp-run, then builds
# and runs its CPU half in a mount namespace where LLVM, MLIR, OpenBLAS and
# oneDNN are hidden (hide-libraries.sh), and checks the report
# (check_cpu_half.py). Exit 77 (skipped) where no mount namespace can be
# made. KEEP_KIT=DIR keeps the kit and its run there.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$1" && pwd)
if ! unshare -m --propagation private true 2>/dev/null; then
  echo "test-cpu-half: cannot make a mount namespace (unshare -m needs root" \
       "or user namespaces); skipped"
  exit 77
fi
work=${KEEP_KIT:-$(mktemp -d "${TMPDIR:-/tmp}/amp-gpu-kit.XXXXXX")}
[ -n "${KEEP_KIT:-}" ] || trap 'rm -rf "$work"' EXIT
rm -rf "$work/kit" "$work/out"
BUILD_DIR=$build "$here/../scripts/gpu-kit.sh" "$work/kit"
# run.sh exits non-zero when a part failed; the report says which.
unshare -m --propagation private "$here/hide-libraries.sh" \
  env KIT_NO_GPU=1 KIT_JOBS="$(nproc)" "$work/kit/run.sh" "$work/out" || true
if ! python3 "$here/check_cpu_half.py" "$work/out"; then
  cat "$work/out/report.md" || true
  exit 1
fi
