"""Checks that a run with --pad-tensor-cores trains as the unpadded run
does: the same steps, skipped steps and loss scales, and per-step losses
within a relative tolerance (argument 3). Padding adds zeros, which change
no sum; what may change is the order in which a kernel picked for the
padded size adds the same terms, so the two runs may part by rounding."""
import json
import sys

a, b = (json.load(open(path)) for path in sys.argv[1:3])
tolerance = float(sys.argv[3])
assert len(a["per_step"]) == len(b["per_step"]) > 0
worst = 0.0
for x, y in zip(a["per_step"], b["per_step"]):
    assert x.get("skipped") == y.get("skipped"), (x, y)
    assert x.get("loss_scale") == y.get("loss_scale"), (x, y)
    gap = abs(x["loss"] - y["loss"]) / max(abs(x["loss"]), 1e-30)
    assert gap <= tolerance, (x, y, gap)
    worst = max(worst, gap)
print(f"ok: {len(a['per_step'])} steps within {tolerance:g} (worst {worst:.1e})")
