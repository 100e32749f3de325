#!/usr/bin/env python3
"""Writes loss curves from amp-run reports as a compact CSV: the mean loss
of every window of W steps, one column per report.

Usage: curves_csv.py OUT.csv WINDOW LABEL=REPORT.json ...
"""
import json
import sys

out, window = sys.argv[1], int(sys.argv[2])
cols = []
for arg in sys.argv[3:]:
    label, path = arg.split("=", 1)
    losses = [s["loss"] for s in json.load(open(path))["per_step"]]
    cols.append((label, [sum(losses[i:i + window]) / len(losses[i:i + window])
                         for i in range(0, len(losses), window)]))
rows = max(len(c) for _, c in cols)
with open(out, "w") as f:
    f.write("step," + ",".join(l for l, _ in cols) + "\n")
    for r in range(rows):
        f.write(str(r * window) + "," + ",".join(
            f"{c[r]:.5f}" if r < len(c) else "" for _, c in cols) + "\n")
print("wrote", out)
