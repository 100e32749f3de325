"""Checks that f16 mixed precision shrinks a step's transient memory.

Usage: check_memory.py F32.json F16.json MAX_RATIO
peak_activation_bytes is the step's peak beyond its inputs and its outputs,
so the f32 master weights and optimizer state (the same in both runs) do not
hide what mixed precision saves.
"""
import json
import sys

f32 = json.load(open(sys.argv[1]))
f16 = json.load(open(sys.argv[2]))
limit = float(sys.argv[3])
a32, a16 = f32["peak_activation_bytes"], f16["peak_activation_bytes"]
assert a32 > 0 and a16 > 0, (a32, a16)
# Master weights stay f32: the step's outputs do not shrink.
assert f16["step_output_bytes"] >= f32["step_output_bytes"], (
    f16["step_output_bytes"], f32["step_output_bytes"])
ratio = a16 / a32
assert ratio <= limit, f"f16/f32 activation bytes {ratio:.3f} > {limit}"
print(f"ok: activation bytes f32 {a32}, f16 {a16}, ratio {ratio:.3f}")
