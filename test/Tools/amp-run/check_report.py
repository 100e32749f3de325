"""Checks amp-run reports: the loss falls, and f16 tracks f32."""
import json
import math
import sys

f32 = json.load(open(sys.argv[1]))
f16 = json.load(open(sys.argv[2]))
losses32 = [s["loss"] for s in f32["per_step"]]
losses16 = [s["loss"] for s in f16["per_step"]]
assert all(math.isfinite(v) for v in losses32 + losses16), "non-finite loss"
first, last = sum(losses32[:10]) / 10, sum(losses32[-10:]) / 10
assert last < 0.8 * first, f"f32 loss did not fall: {first} -> {last}"
# Same seed and data: the f16 run follows the f32 one closely.
worst = max(abs(a - b) for a, b in zip(losses32, losses16))
assert worst < 0.05, f"f16 loss strays from f32 by {worst}"
assert "loss_scale" in f16["per_step"][0], "f16 reports the loss scale"
assert f16["peak_step_bytes"] > 0
print("ok: loss", first, "->", last, "; f16 within", worst)
