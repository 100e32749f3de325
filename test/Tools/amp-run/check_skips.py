"""The report shows skipped steps, a backed-off scale and finite losses."""
import json
import math
import sys

r = json.load(open(sys.argv[1]))
steps = r["per_step"]
skipped = [s for s in steps if s["skipped"]]
assert r["skipped_steps"] == len(skipped) >= 1, "no step was skipped"
assert steps[0]["skipped"], "the first step should overflow at 2^24"
scales = [s["loss_scale"] for s in steps]
assert scales[-1] < 16777216, "the scale never backed off"
assert all(math.isfinite(s["loss"]) for s in steps), "non-finite loss"
assert steps[-1]["loss"] < steps[0]["loss"], "training did not recover"
print("ok:", len(skipped), "skipped; scale", scales[0], "->", scales[-1])
