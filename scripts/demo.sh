#!/usr/bin/env bash
#===- scripts/demo.sh - Build amp and show it on an example graph --------===#
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}

"$root/scripts/build.sh"
example=$root/python-bindings-free-examples/mlp_train_step.mlir
echo "== $example, verified and canonicalized by amp-opt" >&2
"$build/bin/amp-opt" "$example" --canonicalize
