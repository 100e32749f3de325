#!/usr/bin/env python3
"""Times --amp-lower-to-runtime against the number of parameter tensors.

usage: lowering_scale.py BUILD [N ...] [--repeats=R]   (default N: 1250 2500
5000 10000, R 3)

Each model is a chain of N broadcast adds of a [4] parameter into an [8, 4]
input, its mean as the loss, and an SGD update per parameter: every update
reads the one learning rate, as real optimizers do. The step goes through
--tg-autodiff once; the lowering alone is timed (median of R runs) and
printed with its cost per parameter, which stays flat when the lowering
is linear in the step's size.
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time


def step(n):
    """The training step with n parameter tensors, as MLIR text."""
    args = ", ".join(f'%p{i}: tensor<4xf32> {{tg.role = "param", '
                     f'tg.init = "zeros"}}' for i in range(n))
    types = ", ".join(["tensor<4xf32>"] * n)
    results = ", ".join(['tensor<4xf32> {tg.role = "param"}'] * n)
    lines = [f'func.func @train_step({args}, '
             f'%x: tensor<8x4xf32> {{tg.role = "input"}}, '
             f'%lr: tensor<f32> {{tg.role = "lr"}}) -> '
             f'(tensor<f32> {{tg.role = "loss"}}, {results}) {{']
    h = "%x"
    for i in range(n):
        lines.append(f"  %h{i} = tg.add {h}, %p{i} : tensor<8x4xf32>, "
                     "tensor<4xf32>")
        h = f"%h{i}"
    lines.append(f"  %l = tg.reduce_mean {h} {{dims = array<i64: 0, 1>}} : "
                 "tensor<8x4xf32>")
    wrt = ", ".join(f"%p{i}" for i in range(n))
    lines.append(f"  %g:{n} = tg.gradients %l wrt {wrt} : tensor<f32>, "
                 f"{types}")
    for i in range(n):
        lines.append(f"  %u{i} = tg.sgd_update %p{i}, %g#{i}, %lr : "
                     "tensor<4xf32>")
    updated = ", ".join(f"%u{i}" for i in range(n))
    lines.append(f"  return %l, {updated} : tensor<f32>, {types}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main(argv):
    if len(argv) < 2 or argv[1].startswith("-"):
        sys.stderr.write(__doc__)
        return 2
    amp_opt = os.path.join(argv[1], "bin", "amp-opt")
    repeats = 3
    sizes = []
    for a in argv[2:]:
        if a.startswith("--repeats="):
            repeats = int(a.split("=", 1)[1])
        else:
            sizes.append(int(a))
    sizes = sizes or [1250, 2500, 5000, 10000]
    print("| parameter tensors | lowering (median s) | us per parameter |")
    print("|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            source = os.path.join(tmp, f"step{n}.mlir")
            expanded = os.path.join(tmp, f"step{n}.autodiff.mlir")
            with open(source, "w") as f:
                f.write(step(n))
            subprocess.run([amp_opt, source, "--tg-autodiff", "-o", expanded],
                           check=True)
            seconds = []
            for _ in range(repeats):
                start = time.perf_counter()
                subprocess.run([amp_opt, expanded, "--amp-lower-to-runtime",
                                "-o", os.devnull], check=True)
                seconds.append(time.perf_counter() - start)
            median = statistics.median(seconds)
            print(f"| {n} | {median:.3f} | {median / n * 1e6:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
