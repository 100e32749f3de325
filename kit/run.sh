#!/bin/sh
# The GPU kit's one command: DIR/run.sh OUT builds the runtime, runs its
# tests and every measurement this machine can run, and writes
# OUT/report.md, OUT/report.json and OUT/logs/. See README.md beside it.
set -eu
if [ $# -ne 1 ]; then
  echo "usage: $0 OUT" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
# In a kit run.py is in kit/ beside this file; in amp's tree, beside it.
run=$here/kit/run.py
[ -f "$run" ] || run=$here/run.py
exec python3 "$run" "$1"
