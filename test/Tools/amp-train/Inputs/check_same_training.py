"""Checks that amp-train trained a step exactly as amp-run did: the same
per-step losses, loss scales and skipped steps (bit for bit), the same final
parameters (their fingerprint), the same test accuracy and FP8 scales, and
the report fields both tools write."""
import json
import sys

run, train = (json.load(open(path)) for path in sys.argv[1:3])
assert len(run["per_step"]) == len(train["per_step"]) > 0
for x, y in zip(run["per_step"], train["per_step"]):
    for key in ("step", "loss", "loss_scale", "skipped"):
        assert x.get(key) == y.get(key), (key, x, y)
for key in ("file", "precision", "device", "batch", "steps", "skipped_steps",
            "final_loss", "params_fingerprint", "final_accuracy", "fp8_scales",
            "peak_step_bytes"):
    assert run.get(key) == train.get(key), (key, run.get(key), train.get(key))
assert set(run) == set(train), set(run) ^ set(train)
print("ok: same training,", len(run["per_step"]), "steps,",
      len(run["fp8_scales"]), "fp8 histories")
