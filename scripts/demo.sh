#!/usr/bin/env bash
#===- scripts/demo.sh - Build amp and show it on an example graph --------===#
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}

"$root/scripts/build.sh"
example=$root/python-bindings-free-examples/mlp_train_step.mlir
report=$build/demo-amp-report.json
echo "== $example through --amp-auto-mixed-precision (f16)" >&2
"$build/bin/amp-opt" "$example" \
  --amp-auto-mixed-precision="precision=f16 report=$report" --canonicalize
echo "== decisions (from $report)" >&2
python3 - "$report" >&2 <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
for op in report["ops"]:
    print(f'{op["name"]:32} {op["precision"]:5} {op["reason"]}')
print("totals:", report["totals"])
PY
