"""Checks three amp-run / amp-train reports of the same text run: the same
per-step losses bit for bit, a validation loss whose bits per byte are its
nats over ln 2, and the same number of validation windows."""
import json
import math
import sys

runs = [json.load(open(path)) for path in sys.argv[1:]]
losses = [[s["loss"] for s in r["per_step"]] for r in runs]
assert all(l == losses[0] for l in losses), losses
for r in runs:
    bits = r["final_val_loss"] / math.log(2)
    assert abs(r["final_val_bits_per_byte"] - bits) < 1e-12, r
assert len({r["val_windows"] for r in runs}) == 1
assert len({r["final_val_loss"] for r in runs}) == 1
print(f"ok: {len(losses[0])} steps, the same losses {len(runs)} times, "
      f"{runs[0]['val_windows']} validation windows")
