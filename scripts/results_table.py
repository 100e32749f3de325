#!/usr/bin/env python3
"""Summarises amp-run reports as a Markdown table (docs/results.md).

Usage: results_table.py MODEL:PRECISION=REPORT.json ...
Prints one row per report, then how far each f16 curve strays from f32.
"""
import json
import sys


def smooth(values, k=50):
    return [sum(values[max(0, i - k):i + 1]) / len(values[max(0, i - k):i + 1])
            for i in range(len(values))]


rows, curves = [], {}
for arg in sys.argv[1:]:
    key, path = arg.split("=", 1)
    model, precision = key.split(":")
    r = json.load(open(path))
    losses = [s["loss"] for s in r["per_step"]]
    curves[(model, precision)] = smooth(losses)
    rows.append((model, precision, r))

def held_out(r):
    """Test accuracy, or a language model's validation loss."""
    if "final_val_loss" in r:
        return (f"val {r['final_val_loss']:.4f} nats "
                f"({r['final_val_bits_per_byte']:.3f} bits/byte)")
    acc = r.get("final_accuracy")
    return "n/a (synthetic)" if acc is None else f"{acc * 100:.2f}%"


print("| model | precision | steps | skipped | final loss (smoothed) | "
      "test accuracy / validation loss | samples/s | peak activation bytes "
      "| peak step bytes |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
for model, precision, r in rows:
    c = curves[(model, precision)]
    print(f"| {model} | {precision} | {r['steps']} | {r['skipped_steps']} | "
          f"{c[-1]:.4f} | {held_out(r)} | {r['samples_per_second']:.0f} | "
          f"{r.get('peak_activation_bytes', 'n/a')} | "
          f"{r.get('peak_step_bytes', 'n/a')} |")
print()
for (model, precision), c in curves.items():
    if precision == "f32":
        continue
    base = curves.get((model, "f32"))
    if base:
        n = min(len(base), len(c))
        gaps = [abs(base[i] - c[i]) for i in range(n)]
        # The first steps of an f16 run are skipped while the dynamic loss
        # scale backs off from 65536, which shifts the curve by a step or
        # two exactly where the loss falls fastest.
        settled = max(gaps[n // 20:])
        print(f"- {model} {precision} vs f32: largest gap between the "
              f"50-step moving averages {max(gaps):.4f} over the whole run, "
              f"{settled:.4f} after the first 5% of steps, "
              f"{gaps[-1]:.4f} at the end")
