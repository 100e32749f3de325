#!/usr/bin/env bash
#===- scripts/fuzz.sh - Run amp-pipeline-fuzzer under libFuzzer ----------===#
#
# Usage: scripts/fuzz.sh [SECONDS] [libFuzzer flags...]   (default 600 s)
# Builds the sanitizer build (scripts/sanitize.sh's, without its tests) and
# fuzzes the whole pipeline starting from test/Fuzz/corpus. New inputs go to
# build-sanitize/fuzz/corpus (never into the repository); a failing input
# lands in build-sanitize/fuzz/artifacts. Replay one with
#   build-sanitize/bin/amp-pipeline-fuzzer FILE
# and commit it under test/Fuzz/regressions/ with the fix, so the suite
# replays it from then on.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SANITIZE_BUILD_DIR:-$root/build-sanitize}
seconds=${1:-600}
shift || true

"$root/scripts/sanitize.sh" --build-only amp-pipeline-fuzzer

mkdir -p "$build/fuzz/corpus" "$build/fuzz/artifacts"
seeds=("$root/test/Fuzz/corpus")
[ -d "$root/test/Fuzz/regressions" ] && seeds+=("$root/test/Fuzz/regressions")
export OMP_NUM_THREADS=1
exec "$build/bin/amp-pipeline-fuzzer" "$build/fuzz/corpus" "${seeds[@]}" \
  -max_total_time="$seconds" -rss_limit_mb=4096 -timeout=60 \
  -artifact_prefix="$build/fuzz/artifacts/" -print_final_stats=1 "$@"
