#!/usr/bin/env bash
#===- scripts/demo.sh - Build amp and show it on an example graph --------===#
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}

"$root/scripts/build.sh"
example=$root/python-bindings-free-examples/mlp_adam.mlir
report=$build/demo-amp-report.json
echo "== $example (forward-only) through --amp-pipeline: autodiff, f16 AMP, dynamic loss scaling" >&2
"$build/bin/amp-opt" "$example" --amp-pipeline="precision=f16 report=$report"
echo "== decisions (from $report)" >&2
python3 - "$report" >&2 <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
for op in report["ops"]:
    print(f'{op["name"]:32} {op["precision"]:5} {op["reason"]}')
print("totals:", report["totals"])
PY

echo "== training it on Fashion-MNIST for one epoch in f16 mixed precision (amp-run)" >&2
"$build/bin/amp-run" "$example" --data=fashion-mnist --precision=f16 \
  --epochs=1 --lr=0.001 --log-every=375 --report="$build/demo-run-report.json"
