"""Checks AMPRT_PROFILE tables written for runs of 2, 3 and 4 steps.

Each table must be well formed: the header, one row per op with a positive
call count, times that are not negative, rows longest first, shares that
add up to 1. The runs differ only in their step count, so every op's calls
must grow linearly with it: calls(4) - calls(2) == 2 * (calls(3) - calls(2)),
and a step of the example mlp_adam runs products and four Adam updates.

usage: check_op_profile.py TWO.tsv THREE.tsv FOUR.tsv
"""
import sys

HEADER = ["op", "calls", "total_ms", "mean_us", "share"]


def read_table(path):
    with open(path) as f:
        lines = f.read().splitlines()
    if lines[0].split("\t") != HEADER:
        sys.exit(f"{path}: header {lines[0]!r}")
    rows = {}
    last_total = float("inf")
    share = 0.0
    for line in lines[1:]:
        op, calls, total_ms, mean_us, frac = line.split("\t")
        calls, total_ms = int(calls), float(total_ms)
        if calls <= 0 or total_ms < 0 or float(mean_us) < 0:
            sys.exit(f"{path}: bad row {line!r}")
        if total_ms > last_total:
            sys.exit(f"{path}: {op} is out of order")
        last_total = total_ms
        share += float(frac)
        rows[op] = calls
    if abs(share - 1.0) > 1e-3:
        sys.exit(f"{path}: shares add up to {share}")
    return rows


two, three, four = (read_table(p) for p in sys.argv[1:4])
for op in sorted(set(two) | set(three) | set(four)):
    c2, c3, c4 = two.get(op, 0), three.get(op, 0), four.get(op, 0)
    if c4 - c2 != 2 * (c3 - c2):
        sys.exit(f"{op}: {c2}, {c3}, {c4} calls for 2, 3, 4 steps")
per_step = {op: three.get(op, 0) - two.get(op, 0) for op in three}
# mlp_adam: two dense layers, so four parameters for Adam a step.
if per_step.get("amprt_adam_update") != 4 or per_step.get("amprt_matmul", 0) <= 0:
    sys.exit(f"a step's ops are not counted as run: {per_step}")
print(f"ok: {len(four)} ops, calls linear in the steps")
