#!/usr/bin/env bash
#===- scripts/update-docs.sh - Refresh the ODS-generated references ------===#
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
"$root/scripts/build.sh" >/dev/null
for dir in Dialects Passes Interfaces; do
  mkdir -p "$root/docs/$dir"
  cp "$build/docs/$dir"/*.md "$root/docs/$dir/"
done
echo "updated: $(cd "$root/docs" && ls Dialects/*.md Passes/*.md Interfaces/*.md)"
