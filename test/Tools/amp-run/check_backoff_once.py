"""Checks that each skipped optimizer step backs the loss scale off once
(by BACKOFF), however many micro-batches it accumulated: the scale a step
reports is the previous step's times BACKOFF after a skip.

usage: check_backoff_once.py REPORT.json BACKOFF
"""
import json
import sys

steps = json.load(open(sys.argv[1]))["per_step"]
backoff = float(sys.argv[2])
skips = 0
for before, after in zip(steps, steps[1:]):
    if after["skipped"]:
        skips += 1
        assert after["loss_scale"] == before["loss_scale"] * backoff, (before, after)
assert steps[0]["skipped"] and skips >= 1, "no step overflowed"
print(f"ok: {skips + 1} skipped steps, each backed the scale off once")
