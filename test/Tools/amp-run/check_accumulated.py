"""Checks a run with gradient accumulation against the run whose batch is
the accumulated one (K micro-batches of B rows against one batch of K x B):
the same steps, every step's loss within REL (relative; they differ only in
summation order), and a lower peak of transient memory (one micro-batch's
activations at a time).

usage: check_accumulated.py WHOLE.json ACCUMULATED.json REL
"""
import json
import sys

whole, accumulated = (json.load(open(p)) for p in sys.argv[1:3])
rel = float(sys.argv[3])
a, b = whole["per_step"], accumulated["per_step"]
assert len(a) == len(b) > 0, (len(a), len(b))
assert whole["batch"] == accumulated["batch"], (whole["batch"], accumulated["batch"])
worst = 0.0
for x, y in zip(a, b):
    assert x["skipped"] == y["skipped"], (x, y)
    worst = max(worst, abs(x["loss"] - y["loss"]) / abs(x["loss"]))
assert worst <= rel, f"a step's loss differs by {worst:.3g} (relative) > {rel}"
assert a[-1]["loss"] < a[0]["loss"], "the run did not learn"
peak, peak_accumulated = (r["peak_activation_bytes"] for r in (whole, accumulated))
assert peak_accumulated < peak, (peak_accumulated, peak)
print(f"ok: {len(a)} steps agree within {rel}; transient memory "
      f"{peak_accumulated} of {peak} bytes")
