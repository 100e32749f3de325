#!/usr/bin/env bash
#===- scripts/fuzz.sh - Run one of amp's fuzzers under libFuzzer ---------===#
#
# Usage: [AMP_FUZZER=amp-data-fuzzer] scripts/fuzz.sh [SECONDS] [flags...]
# (default amp-pipeline-fuzzer for 600 s). Builds the sanitizer build
# (scripts/sanitize.sh's, without its tests) and fuzzes from the fuzzer's
# seeds: test/Fuzz/corpus for the pipeline, test/Fuzz/data-corpus for the
# data files. New inputs go to build-sanitize/fuzz/FUZZER/corpus (never into
# the repository); a failing input lands in build-sanitize/fuzz/FUZZER/
# artifacts. Replay one with
#   build-sanitize/bin/FUZZER FILE
# and commit it under the seeds with the fix, so the suite replays it from
# then on.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SANITIZE_BUILD_DIR:-$root/build-sanitize}
seconds=${1:-600}
shift || true

fuzzer=${AMP_FUZZER:-amp-pipeline-fuzzer}
case "$fuzzer" in
  amp-pipeline-fuzzer) seeds=("$root/test/Fuzz/corpus") ;;
  amp-data-fuzzer) seeds=("$root/test/Fuzz/data-corpus") ;;
  *) echo "fuzz.sh: AMP_FUZZER must be amp-pipeline-fuzzer or amp-data-fuzzer, got '$fuzzer'" >&2
     exit 2 ;;
esac
"$root/scripts/sanitize.sh" --build-only "$fuzzer"

out=$build/fuzz/$fuzzer
mkdir -p "$out/corpus" "$out/artifacts"
[ -d "$root/test/Fuzz/regressions" ] && seeds+=("$root/test/Fuzz/regressions")
export OMP_NUM_THREADS=1
exec "$build/bin/$fuzzer" "$out/corpus" "${seeds[@]}" \
  -max_total_time="$seconds" -rss_limit_mb=4096 -timeout=60 \
  -artifact_prefix="$out/artifacts/" -print_final_stats=1 "$@"
