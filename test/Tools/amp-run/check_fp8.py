"""An fp8 run tracks the f32 run of the same step: finite losses, no
skipped step, and the mean loss of the last 20 steps within 5% of f32's."""
import json
import math
import sys

f32 = json.load(open(sys.argv[1]))["per_step"]
fp8 = json.load(open(sys.argv[2]))["per_step"]
assert len(f32) == len(fp8), "different step counts"
assert all(math.isfinite(s["loss"]) for s in fp8), "non-finite fp8 loss"
assert not any(s["skipped"] for s in fp8), "an fp8 step was skipped"
tail = lambda steps: sum(s["loss"] for s in steps[-20:]) / 20
a, b = tail(f32), tail(fp8)
assert abs(a - b) <= 0.05 * a, f"last-20 mean loss f32 {a:.4f}, fp8 {b:.4f}"
assert b < fp8[0]["loss"], "fp8 did not train"
print(f"ok: last-20 mean loss f32 {a:.4f}, fp8 {b:.4f}")
