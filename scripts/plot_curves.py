#!/usr/bin/env python3
"""Plots the per-step training loss of amp-run reports, one curve per
precision, with matplotlib (Debian's python3-matplotlib, which the set-up
installs for scripts/results.sh).

usage: plot_curves.py OUT.png TITLE LABEL=REPORT.json [LABEL=REPORT.json ...]

Each curve is the loss averaged over windows of steps (about 200 points a
run), labelled by its precision in the legend; the axes are the training
step and the loss (nats). Where a run's loss scale changed (dynamic loss
scaling in f16), the scale is drawn on a second, logarithmic axis in the
same colour, dashed, and the legend says how many steps it skipped. The
image is written to a temporary file beside OUT and renamed into place.
"""
import json
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")  # no display: files only
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, "kit"))
from files import temporary_beside  # noqa: E402


def read_run(label, path):
    """(label, steps, smoothed losses, scale steps, scales, skipped)."""
    report = json.load(open(path))
    steps = report["per_step"]
    if not steps:
        raise ValueError(f"{path}: no steps")
    window = max(1, len(steps) // 200)
    xs, ys = [], []
    for first in range(0, len(steps), window):
        part = [s["loss"] for s in steps[first:first + window]
                if s["loss"] is not None and math.isfinite(s["loss"])]
        if part:
            xs.append(first + window / 2)
            ys.append(sum(part) / len(part))
    scales = [(s["step"], s["loss_scale"]) for s in steps
              if s.get("loss_scale") is not None]
    changed = len({v for _, v in scales}) > 1
    return {"label": label, "xs": xs, "ys": ys,
            "scales": scales if changed else [],
            "skipped": report.get("skipped_steps", 0)}


def plot(out, title, runs):
    fig, loss_axis = plt.subplots(figsize=(8, 4.8), dpi=100)
    scale_axis = None
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for colour, run in zip(colours * 4, runs):
        name = run["label"]
        if run["skipped"]:
            name += f" ({run['skipped']} steps skipped)"
        loss_axis.plot(run["xs"], run["ys"], color=colour, linewidth=1.4,
                       label=name)
        if run["scales"]:
            if scale_axis is None:
                scale_axis = loss_axis.twinx()
                scale_axis.set_yscale("log", base=2)
                scale_axis.set_ylabel("loss scale (dashed)")
            steps, values = zip(*run["scales"])
            scale_axis.step(steps, values, where="post", color=colour,
                            linestyle="--", linewidth=1,
                            label=f"{run['label']} loss scale")
    loss_axis.set_xlabel("training step")
    loss_axis.set_ylabel("training loss (nats, window mean)")
    loss_axis.set_title(title)
    loss_axis.grid(True, alpha=0.3)
    handles, labels = loss_axis.get_legend_handles_labels()
    if scale_axis is not None:
        more, more_labels = scale_axis.get_legend_handles_labels()
        handles, labels = handles + more, labels + more_labels
    loss_axis.legend(handles, labels, loc="upper right", fontsize="small")
    fig.tight_layout()
    with temporary_beside(out) as partial:
        fig.savefig(partial, format="png")
    plt.close(fig)


def main(argv):
    if len(argv) < 4 or any("=" not in a for a in argv[3:]):
        sys.exit(__doc__)
    try:
        runs = [read_run(*arg.split("=", 1)) for arg in argv[3:]]
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f"plot_curves.py: error: {e}")
    plot(argv[1], argv[2], runs)
    print("wrote", argv[1])


if __name__ == "__main__":
    main(sys.argv)
