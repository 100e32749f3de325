#!/usr/bin/env bash
#===- scripts/update-docs.sh - Refresh the ODS-generated references ------===#
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
"$root/scripts/build.sh" >/dev/null
mkdir -p "$root/docs/Dialects"
cp "$build"/docs/Dialects/*.md "$root/docs/Dialects/"
echo "updated: $(ls "$root/docs/Dialects")"
