"""Checks that two amp-run reports have bit-identical per-step losses, loss
scales and skipped steps: runs whose lowering differs only in how it
schedules the same arithmetic (--lower-options)."""
import json
import sys

a, b = (json.load(open(path)) for path in sys.argv[1:3])
assert len(a["per_step"]) == len(b["per_step"]) > 0
for x, y in zip(a["per_step"], b["per_step"]):
    assert x["loss"] == y["loss"], (x, y)
    assert x.get("loss_scale") == y.get("loss_scale"), (x, y)
    assert x.get("skipped") == y.get("skipped"), (x, y)
print("ok: same losses,", len(a["per_step"]), "steps")
