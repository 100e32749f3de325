#!/usr/bin/env bash
#===- scripts/results.sh - Reproduce docs/results.md's runs and plots ----===#
# Trains each model in every precision it is reported in (same seed, same
# hyperparameters, f32 first), then writes its loss plot (matplotlib), its
# curve CSV and the results table. The three examples train on
# Fashion-MNIST in f32, f16, bf16 and fp8 (about 15 minutes on a 2-core
# machine); ResNet-18 for 2 epochs of Fashion-MNIST and the GPT character
# model for 2000 steps of the Jargon File in f32, f16 and bf16 (about 90
# minutes more). Two runs go side by side, one thread each (OpenMP and
# OpenBLAS threads on a 2-core machine otherwise slow each other down
# several-fold); one thread also makes every run bit-reproducible.
# Usage: scripts/results.sh [OUT_DIR [MODEL...]]   (default: every model)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
out=${1:-$build/results}
shift || true
mkdir -p "$out"
"$root/scripts/build.sh" >/dev/null
# The plots need matplotlib, Debian's for Debian's python3.
"$root/scripts/setup.sh" python3-matplotlib
python=/usr/bin/python3

# model  data  length  lr  precisions (f32 first)  title
runs=(
  "mlp_adam fashion-mnist --epochs=10 0.001 f32,f16,bf16,fp8 MLP (784-128-10, Adam)"
  "cnn fashion-mnist --epochs=8 0.01 f32,f16,bf16,fp8 CNN (2 convolutions, momentum SGD)"
  "transformer_block fashion-mnist --epochs=2 0.05 f32,f16,bf16,fp8 Transformer block (d=32, SGD)"
  "resnet18 fashion-mnist --epochs=2 0.05 f32,f16,bf16 ResNet-18 (batch 64, SGD momentum + weight decay)"
  "gpt_char text --steps=2000 0.0003 f32,f16,bf16 GPT character model (d=256, 4 layers, AdamW)"
)
wanted=" $* "
table=()
for run in "${runs[@]}"; do
  read -r model data length lr precisions title <<<"$run"
  [ $# -eq 0 ] || [[ "$wanted" == *" $model "* ]] || continue
  IFS=, read -r -a list <<<"$precisions"
  echo "== $model ${list[*]} ($length, lr $lr)" >&2
  # Two runs at a time, one thread each.
  for ((i = 0; i < ${#list[@]}; i += 2)); do
    pids=()
    for precision in "${list[@]:i:2}"; do
      OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \
        "$build/bin/amp-run" "$root/python-bindings-free-examples/$model.mlir" \
        --data="$data" --precision="$precision" "$length" \
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
  "$python" "$root/scripts/plot_curves.py" "$root/docs/results-$model-loss.png" \
    "$title" "${curves[@]}"
  python3 "$root/scripts/curves_csv.py" "$root/docs/results-$model-curves.csv" \
    250 "${curves[@]}"
done
python3 "$root/scripts/results_table.py" "${table[@]}"
