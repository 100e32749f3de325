#!/usr/bin/env bash
#===- scripts/results.sh - Reproduce docs/results.md's runs and plots ----===#
# Trains the three example models on Fashion-MNIST in f32 and f16 (same seed
# and hyperparameters), then writes the loss plots, the curve CSVs and the
# results table. The f32 and f16 runs of a model go side by side, one
# thread each (OpenMP and OpenBLAS threads on a 2-core machine otherwise
# slow each other down several-fold); one thread also makes every run
# bit-reproducible. About 25 minutes on a 2-core machine.
# Usage: scripts/results.sh [OUT_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
out=${1:-$build/results}
mkdir -p "$out"
"$root/scripts/build.sh" >/dev/null

# model  epochs  lr
runs=("mlp_adam 10 0.001" "cnn 8 0.01" "transformer_block 2 0.05")
for run in "${runs[@]}"; do
  read -r model epochs lr <<<"$run"
  echo "== $model f32 and f16 ($epochs epochs, lr $lr)" >&2
  pids=()
  for precision in f32 f16; do
    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \
      "$build/bin/amp-run" "$root/python-bindings-free-examples/$model.mlir" \
      --data=fashion-mnist --precision="$precision" --epochs="$epochs" \
      --lr="$lr" --seed=1 --log-every=1000000 \
      --report="$out/${model}_$precision.json" 2>"$out/${model}_$precision.log" &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid"; done
  tail -n 1 "$out/${model}_f32.log" "$out/${model}_f16.log" >&2
  python3 "$root/scripts/plot_curves.py" "$root/docs/results-$model-loss.png" \
    "f32=$out/${model}_f32.json" "f16=$out/${model}_f16.json"
  python3 "$root/scripts/curves_csv.py" "$root/docs/results-$model-curves.csv" \
    250 "f32=$out/${model}_f32.json" "f16=$out/${model}_f16.json"
done
args=()
for run in "${runs[@]}"; do
  read -r model _ <<<"$run"
  args+=("$model:f32=$out/${model}_f32.json" "$model:f16=$out/${model}_f16.json")
done
python3 "$root/scripts/results_table.py" "${args[@]}"
