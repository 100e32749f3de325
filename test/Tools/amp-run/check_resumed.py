"""Checks that a resumed run went on as the uninterrupted one: its per-step
records (numbered from the original start) hold the uninterrupted run's
losses, loss scales and skipped flags for the same steps bit for bit, it
ends with the same parameters and test figures, and it says where it
resumed.

usage: check_resumed.py FULL.json RESUMED.json FROM_STEP
"""
import json
import sys

full, resumed = (json.load(open(p)) for p in sys.argv[1:3])
first = int(sys.argv[3])
assert resumed["resumed_from"] == first, resumed.get("resumed_from")
tail = full["per_step"][first:]
assert [s["step"] for s in resumed["per_step"]] == [s["step"] for s in tail]
for key in ("loss", "loss_scale", "skipped"):
    assert [s.get(key) for s in resumed["per_step"]] == \
        [s.get(key) for s in tail], key
for key in ("params_fingerprint", "final_accuracy", "final_val_loss",
            "fp8_scales"):
    assert full.get(key) == resumed.get(key), (key, full.get(key),
                                               resumed.get(key))
print(f"ok: steps {first}-{full['steps'] - 1} as the uninterrupted run's, "
      f"params {full['params_fingerprint']}")
