#!/usr/bin/env python3
"""Compares the memrefs two upstream runs printed (printMemrefF32).

usage: compare_outputs.py REFERENCE MIXED [--tolerance T | --same]

Both must print the same shapes; the largest difference, relative to the
largest magnitude of the reference, must stay within T (f16 inputs with
f32 accumulation: about 1e-2). The mixed run must differ from the
reference somewhere, or it did not run in low precision at all. With
--same the two must print the same numbers, sign of zero included (a
rewrite that keeps the precision, such as Tensor Core padding).
"""
import re
import sys


def read(path):
    with open(path) as f:
        text = f.read()
    blocks = re.split(r"Unranked Memref", text)[1:]
    if not blocks:
        sys.exit(f"{path}: no printed memref")
    out = []
    for block in blocks:
        sizes = re.search(r"sizes = \[([^\]]*)\]", block).group(1)
        data = block.split("data =", 1)[1]
        tokens = re.findall(r"-?(?:nan|inf|\d+\.?\d*(?:e[-+]?\d+)?)", data)
        out.append((sizes, [float(v) for v in tokens], tokens))
    return out


def main():
    args = sys.argv[1:]
    tolerance = 1e-2
    same = "--same" in args
    if same:
        args.remove("--same")
        tolerance = 0.0
    if "--tolerance" in args:
        i = args.index("--tolerance")
        tolerance = float(args[i + 1])
        del args[i:i + 2]
    if len(args) != 2:
        sys.exit(__doc__)
    reference, mixed = read(args[0]), read(args[1])
    if len(reference) != len(mixed):
        sys.exit(f"{len(reference)} memrefs against {len(mixed)}")
    any_difference = False
    for (rs, rv, rt), (ms, mv, mt) in zip(reference, mixed):
        if rs != ms or len(rv) != len(mv):
            sys.exit(f"shapes differ: [{rs}] against [{ms}]")
        if same and rt != mt:
            first = next(i for i, (a, b) in enumerate(zip(rt, mt)) if a != b)
            sys.exit(f"[{rs}]: element {first} is {rt[first]} against "
                     f"{mt[first]}")
        scale = max(abs(v) for v in rv) or 1.0
        worst = max(abs(a - b) for a, b in zip(rv, mv)) / scale
        any_difference |= worst > 0
        print(f"[{rs}]: largest difference {worst:.2e} of the largest value "
              f"(tolerance {tolerance:.0e})")
        if not worst <= tolerance:
            sys.exit("mixed precision is too far from the f32 reference"
                     if not same else "the two runs differ")
    if not any_difference and not same:
        sys.exit("the mixed run equals the f32 run: nothing ran in low "
                 "precision")


main()
