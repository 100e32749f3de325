#!/usr/bin/env bash
# The GPU kit's refusals: gpu-kit.sh with no folder, with a folder that
# exists (left as it was), and run.sh with no OUT, outside a kit, or with
# KIT_PARTS naming no part.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/amp-kit-refusals.XXXXXX")
trap 'rm -rf "$work"' EXIT
status=0
expect() { # expect CODE MESSAGE COMMAND...
  local code=$1 message=$2
  shift 2
  local out rc
  out=$("$@" 2>&1)
  rc=$?
  if [ "$rc" != "$code" ] || ! grep -qF -- "$message" <<<"$out"; then
    echo "FAIL: $* exited $rc (want $code) saying: $out"
    status=1
  fi
}
export BUILD_DIR=$1
expect 2 "usage:" "$here/../scripts/gpu-kit.sh"
mkdir "$work/kit" && echo mine > "$work/kit/file"
expect 1 "exists; remove it or name another folder" \
  "$here/../scripts/gpu-kit.sh" "$work/kit"
[ "$(cat "$work/kit/file")" = mine ] || { echo "FAIL: DIR changed"; status=1; }
expect 2 "usage:" "$here/run.sh"
expect 1 "cannot read the kit's kit.json" "$here/run.sh" "$work/out"
expect 2 "KIT_PARTS names no part nonsense" \
  env KIT_PARTS=gemm,nonsense "$here/run.sh" "$work/out"
exit $status
