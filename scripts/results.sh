#!/usr/bin/env bash
#===- scripts/results.sh - Reproduce docs/results.md's runs and plots ----===#
# Trains the three example models on Fashion-MNIST in f32, f16, bf16 and
# fp8 (same seed and hyperparameters), then writes the loss plots, the curve CSVs and the
# results table. Two runs go side by side, one thread each (OpenMP and
# OpenBLAS threads on a 2-core machine otherwise slow each other down
# several-fold); one thread also makes every run bit-reproducible. About
# 15 minutes on a 2-core machine (2026-11-24).
# Usage: scripts/results.sh [OUT_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
out=${1:-$build/results}
mkdir -p "$out"
"$root/scripts/build.sh" >/dev/null

# model  epochs  lr  precisions (f32 first)
runs=("mlp_adam 10 0.001 f32,f16,bf16,fp8" "cnn 8 0.01 f32,f16,bf16,fp8"
      "transformer_block 2 0.05 f32,f16,bf16,fp8")
table=()
for run in "${runs[@]}"; do
  read -r model epochs lr precisions <<<"$run"
  IFS=, read -r -a list <<<"$precisions"
  echo "== $model ${list[*]} ($epochs epochs, lr $lr)" >&2
  # Two runs at a time, one thread each.
  for ((i = 0; i < ${#list[@]}; i += 2)); do
    pids=()
    for precision in "${list[@]:i:2}"; do
      OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \
        "$build/bin/amp-run" "$root/python-bindings-free-examples/$model.mlir" \
        --data=fashion-mnist --precision="$precision" --epochs="$epochs" \
        --lr="$lr" --seed=1 --log-every=1000000 \
        --report="$out/${model}_$precision.json" 2>"$out/${model}_$precision.log" &
      pids+=($!)
    done
    for pid in "${pids[@]}"; do wait "$pid"; done
  done
  curves=()
  for precision in "${list[@]}"; do
    tail -n 1 "$out/${model}_$precision.log" >&2
    curves+=("$precision=$out/${model}_$precision.json")
    table+=("$model:$precision=$out/${model}_$precision.json")
  done
  python3 "$root/scripts/plot_curves.py" "$root/docs/results-$model-loss.png" \
    "${curves[@]}"
  python3 "$root/scripts/curves_csv.py" "$root/docs/results-$model-curves.csv" \
    250 "${curves[@]}"
done
python3 "$root/scripts/results_table.py" "${table[@]}"
