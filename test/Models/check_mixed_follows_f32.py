"""Checks that mixed-precision amp-run reports train as the f32 one does:
every loss finite, each step's loss within TOL (relative) of the f32 run's,
the same number of steps, and the loss lower at the end than at the start.

usage: check_mixed_follows_f32.py F32.json TOL MIXED.json...
"""
import json
import math
import sys

reference, tol = json.load(open(sys.argv[1])), float(sys.argv[2])
f32 = [s["loss"] for s in reference["per_step"]]
assert f32[-1] < f32[0], ("f32 did not learn", f32)
for path in sys.argv[3:]:
    run = json.load(open(path))
    losses = [s["loss"] for s in run["per_step"]]
    assert len(losses) == len(f32), (path, len(losses), len(f32))
    for step, (a, b) in enumerate(zip(f32, losses)):
        assert b is not None and math.isfinite(b), (path, step, b)
        assert abs(a - b) <= tol * abs(a), (path, step, a, b)
    print(f"ok: {run['precision']} follows f32 over {len(losses)} steps")
