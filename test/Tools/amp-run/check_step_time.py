"""Checks that every step of an amp-run report took at least MS
milliseconds (the emulated device's wait at each synchronising call), and
that train_seconds and samples_per_second are made of those times."""
import json
import sys

report, least = json.load(open(sys.argv[1])), float(sys.argv[2])
times = [s["time_ms"] for s in report["per_step"]]
assert times and all(t >= least for t in times), (least, times)
total = sum(times) / 1000
assert abs(report["train_seconds"] - total) <= 1e-6 * total, (report, total)
rate = report["batch"] * len(times) / report["train_seconds"]
assert abs(report["samples_per_second"] - rate) <= 1e-6 * rate, report
print(f"ok: {len(times)} steps, each at least {least:g} ms")
