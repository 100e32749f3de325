"""Checks that two amp-run reports trained the same: per-step losses, loss
scales and skipped steps, and the final accuracy (reductions may sum in a
different order on the device, hence a relative tolerance), and, unless
--not-memory, the same activation memory.

usage: check_same_run.py CPU.json CUDA.json [--not-memory]
"""
import json
import sys

a, b = (json.load(open(path)) for path in sys.argv[1:3])
same_memory = "--not-memory" not in sys.argv[3:]
assert b["device"] == "cuda", f"second run was on {b['device']}"
assert len(a["per_step"]) == len(b["per_step"]) > 0
for x, y in zip(a["per_step"], b["per_step"]):
    assert abs(x["loss"] - y["loss"]) <= 1e-4 * max(1.0, abs(x["loss"])), (x, y)
    assert x.get("loss_scale") == y.get("loss_scale"), (x, y)
    assert x.get("skipped") == y.get("skipped"), (x, y)
assert a["skipped_steps"] == b["skipped_steps"]
assert abs(a["final_accuracy"] - b["final_accuracy"]) < 1e-9
# The step's own buffers are the same on both backends; a backend's scratch
# is not: the CPU backend runs bf16 and f16 layer norm and softmax on f32
# copies (one row kernel's input and output, ~1% of the transformer's peak),
# which the device code does not need.
pa, pb = a["peak_activation_bytes"], b["peak_activation_bytes"]
assert not same_memory or pb <= pa <= 1.02 * pb, (pa, pb)
print("ok: same run,", len(a["per_step"]), "steps, skipped", a["skipped_steps"])
