"""Checks that a --validate fix works: the fixed f16 run skips no step and
reaches the f32 run's test accuracy within one point."""
import json
import sys

f32 = json.load(open(sys.argv[1]))
fixed = json.load(open(sys.argv[2]))
assert fixed["precision"] == "f16", fixed["precision"]
assert fixed["skipped_steps"] == 0, f"skipped {fixed['skipped_steps']} steps"
gap = f32["final_accuracy"] - fixed["final_accuracy"]
assert gap <= 0.01, f"fixed f16 accuracy {fixed['final_accuracy']} is {gap} below f32"
assert f32["final_accuracy"] > 0.75, f"f32 reached only {f32['final_accuracy']}"
print("ok: f32", f32["final_accuracy"], "fixed f16", fixed["final_accuracy"],
      "skipped 0")
