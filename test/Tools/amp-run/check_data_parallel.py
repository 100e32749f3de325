#!/usr/bin/env python3
"""Compares amp-run --report files of data-parallel runs.

  same-as-one-process RANKS.json ONE.json --rtol R [--steps N] [--acc-tol A]
      the N-rank run (rank 0's report) against one process with an N times
      larger batch: every loss of the first --steps steps (all by default)
      within relative R, the same skipped steps, test accuracies within A.
  ranks-agree R0.json R1.json ...
      reports of every rank of one run: identical losses, loss scales,
      skipped steps and final parameters (each rank computed them itself).
  identical A.json B.json
      two runs trained bit for bit alike: losses, scales, skipped steps,
      final parameters and accuracy.
  skipped STEP REPORT.json
      the step was skipped and the scale backed off from the step before.
"""
import json
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def fail(message):
    print("check_data_parallel: " + message)
    sys.exit(1)


def same_as_one_process(args):
    ranks, one = load(args[0]), load(args[1])
    rtol = float(args[args.index("--rtol") + 1])
    steps = int(args[args.index("--steps") + 1]) if "--steps" in args else None
    acc_tol = float(args[args.index("--acc-tol") + 1]) if "--acc-tol" in args else 0.0
    dp = ranks.get("data_parallel")
    if not dp or dp["ranks"] < 2:
        fail("the first report is not from a run of several ranks")
    if dp["global_batch"] != one["batch"]:
        fail("global batch %d vs one process's %d" % (dp["global_batch"], one["batch"]))
    a, b = ranks["per_step"], one["per_step"]
    if len(a) != len(b):
        fail("%d steps vs %d" % (len(a), len(b)))
    worst = 0.0
    for i, (x, y) in enumerate(zip(a, b)):
        if steps is not None and i >= steps:
            break
        if x["skipped"] != y["skipped"]:
            fail("step %d skipped in one run only" % i)
        err = abs(x["loss"] - y["loss"]) / max(abs(y["loss"]), 1e-30)
        worst = max(worst, err)
        if err > rtol:
            fail("step %d: loss %r vs %r (relative %.3g > %g)" % (i, x["loss"], y["loss"], err, rtol))
    acc = abs(ranks.get("final_accuracy", 0) - one.get("final_accuracy", 0))
    if acc > acc_tol:
        fail("test accuracy %r vs %r" % (ranks.get("final_accuracy"), one.get("final_accuracy")))
    print("same as one process: worst relative loss difference %.3g, accuracy difference %.4f"
          % (worst, acc))


def ranks_agree(paths):
    reports = [load(p) for p in paths]
    first = reports[0]
    for path, r in zip(paths[1:], reports[1:]):
        for i, (x, y) in enumerate(zip(first["per_step"], r["per_step"])):
            for key in ("loss", "skipped", "loss_scale"):
                if x.get(key) != y.get(key):
                    fail("%s: step %d %s %r vs rank 0's %r" % (path, i, key, y.get(key), x.get(key)))
        if r["params_fingerprint"] != first["params_fingerprint"]:
            fail("%s: final parameters differ from rank 0's" % path)
        # FP8 delayed scaling: every history holds the same amaxes, so the
        # scales, the largest amax and the saturated steps agree.
        for x, y in zip(first.get("fp8_scales", []), r.get("fp8_scales", [])):
            if x != y:
                fail("%s: FP8 scale of argument %r is %r, rank 0's %r" % (path, y.get("argument"), y, x))
    ranks = sorted(r["data_parallel"]["rank"] for r in reports)
    if ranks != list(range(len(reports))):
        fail("reports of ranks %s, expected one per rank" % ranks)
    scales = len(first.get("fp8_scales", []))
    print("%d ranks agree on %d steps%s and the final parameters"
          % (len(reports), len(first["per_step"]), " and %d FP8 scales" % scales if scales else ""))


def identical(args):
    a, b = load(args[0]), load(args[1])
    if len(a["per_step"]) != len(b["per_step"]):
        fail("%d steps vs %d" % (len(a["per_step"]), len(b["per_step"])))
    for i, (x, y) in enumerate(zip(a["per_step"], b["per_step"])):
        for key in ("loss", "skipped", "loss_scale"):
            if x.get(key) != y.get(key):
                fail("step %d %s %r vs %r" % (i, key, x.get(key), y.get(key)))
    for key in ("params_fingerprint", "final_accuracy"):
        if a.get(key) != b.get(key):
            fail("%s %r vs %r" % (key, a.get(key), b.get(key)))
    print("identical: %d steps and the final parameters" % len(a["per_step"]))


def skipped(args):
    step = int(args[0])
    for path in args[1:]:
        r = load(path)["per_step"]
        if not r[step]["skipped"]:
            fail("%s: step %d was not skipped" % (path, step))
        if step > 0 and not r[step]["loss_scale"] < r[step - 1]["loss_scale"]:
            fail("%s: the scale did not back off at step %d" % (path, step))
        if sum(x["skipped"] for x in r) != 1:
            fail("%s: %d skipped steps, expected only step %d" % (path, sum(x["skipped"] for x in r), step))
    print("step %d skipped and the scale backed off in %d reports" % (step, len(args) - 1))


if __name__ == "__main__":
    command, rest = sys.argv[1], sys.argv[2:]
    {"same-as-one-process": same_as_one_process, "ranks-agree": ranks_agree,
     "identical": identical, "skipped": skipped}[command](rest)
