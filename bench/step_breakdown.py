#!/usr/bin/env python3
"""Where a real-size model's CPU training step goes, amp beside PyTorch:
each side's op time per step split into dense products and convolutions,
batched products (PyTorch's attention) or fused attention (amp's), and the
rest, with the largest of the rest; then what amp's step may take to lead
PyTorch's by the real-size models issue's factor (1.3x in bf16, 3x in f32)
and what that leaves beside amp's products.

usage: step_breakdown.py BUILD [--models=a,b] [--precision=bf16|f32]
                         [--steps=N] [--repeats=R]

amp: two amp-run runs under AMPRT_PROFILE, of 3 and 3 + N steps, the first
table taken from the second (the same evaluation ends both), so N steady
steps. PyTorch: kit/torch_train.py --profile, 5 warm-up steps and N
profiled ones, eager f32 or torch.autocast(bfloat16) (its rows say n/a
where PyTorch is not installed; a run that fails stops the script). The
two sides alternate R times and each op's time is its median over them
(the machine's load moves a step by 10-20%). Times are each op's own
(amp's C API calls; PyTorch's ops' self time inside the timed steps),
summed per step, so they leave out what runs between ops. Models and data
as model_speed.py.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

from model_speed import (MODELS, ROOT, TORCH_PYTHON, batch_of, have_torch,
                         source)

# The goals: amp's step at least this many times faster.
GOALS = {"bf16": 1.3, "f32": 3.0}
# PyTorch 1.13's CPU products and convolutions (the _slow_conv2d ones
# where oneDNN has no kernel for the CPU and type).
TORCH_PRODUCTS = ("aten::mm", "aten::addmm", "aten::mkldnn_convolution",
                  "aten::convolution_backward", "aten::_convolution",
                  "aten::_slow_conv2d_forward", "aten::_slow_conv2d_backward")
TORCH_BATCHED = ("aten::bmm", "aten::baddbmm")


def amp_kind(op):
    """Which part of the step one of amp's C API calls is."""
    if op.startswith(("amprt_matmul", "amprt_conv2d")):
        return "products"
    if op.startswith(("amprt_batch_matmul", "amprt_attention")):
        return "batched"
    return "rest"


def torch_kind(op):
    """Which part of the step one of PyTorch's ops is."""
    if op in TORCH_PRODUCTS:
        return "products"
    if op in TORCH_BATCHED:
        return "batched"
    return "rest"


def amp_profile(amp_run, path, precision, data, lr, steps, tmp):
    """{op: ms per steady step} of amp-run's C API calls."""
    def table(n):
        prof = os.path.join(tmp, f"amp-{n}.prof")
        env = dict(os.environ, AMPRT_PROFILE=prof)
        done = subprocess.run(
            [amp_run, path, f"--precision={precision}", f"--steps={n}",
             f"--lr={lr}", f"--data={data}", "--log-every=1000000"], env=env,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if done.returncode != 0:
            sys.exit(f"step_breakdown.py: amp-run {os.path.basename(path)} "
                     f"--precision={precision} failed:\n{done.stderr}")
        if not os.path.exists(prof):
            sys.exit(f"step_breakdown.py: amp-run wrote no AMPRT_PROFILE "
                     f"table:\n{done.stderr}")
        with open(prof) as f:
            return {op: float(total_ms) for op, _, total_ms, *_ in
                    (line.split("\t") for line in list(f)[1:])}
    short, long_ = table(3), table(3 + steps)
    return {op: (long_.get(op, 0.0) - short.get(op, 0.0)) / steps
            for op in set(short) | set(long_)}


def torch_profile(twin, width, batch, precision, data, lr, steps, tmp):
    """{op: self ms per profiled step} of the PyTorch twin; exits with
    torch_train.py's message where it fails."""
    out = os.path.join(tmp, "torch.json")
    done = subprocess.run(
        [TORCH_PYTHON, os.path.join(ROOT, "kit", "torch_train.py"),
         f"--model={twin}", f"--width={width}", f"--batch={batch}",
         f"--steps={5 + steps}", f"--precision={precision}", "--mode=eager",
         "--device=cpu", f"--data={data}", f"--lr={lr}", "--profile",
         f"--json={out}"], stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, text=True)
    row = json.load(open(out)) if done.returncode == 0 else {}
    if "op_ms" not in row:
        sys.exit(f"step_breakdown.py: torch_train.py --model={twin} "
                 f"--precision={precision} gave no op times: "
                 f"{row.get('skipped', done.stderr)}")
    return row["op_ms"]


def median_ops(runs):
    """Each op's median over alternated runs (0 where a run lacks it)."""
    ops = set().union(*runs)
    return {op: statistics.median(r.get(op, 0.0) for r in runs)
            for op in ops}


def split(ops, kind):
    """The step's total, its three parts, and the rest's largest ops."""
    parts = {"products": 0.0, "batched": 0.0, "rest": 0.0}
    for op, ms in ops.items():
        parts[kind(op)] += ms
    rest = sorted(((ms, op) for op, ms in ops.items() if kind(op) == "rest"),
                  reverse=True)[:4]
    largest = ", ".join(f"{op} {ms:.1f}" for ms, op in rest)
    return sum(parts.values()), parts, largest


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("build")
    p.add_argument("--models", default="gpt_char")
    p.add_argument("--precision", default="bf16", choices=sorted(GOALS))
    p.add_argument("--steps", type=int, default=6)
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args()
    if args.steps < 1:
        p.error("--steps must be at least 1")
    if args.repeats < 1:
        p.error("--repeats must be at least 1")
    known = [m[0] for m in MODELS]
    args.models = args.models.split(",")
    for name in args.models:
        if name not in known:
            p.error(f"--models: unknown model '{name}' (known: "
                    f"{', '.join(known)})")
    args.amp_run = os.path.join(args.build, "bin", "amp-run")
    if not os.access(args.amp_run, os.X_OK):
        p.error(f"{args.amp_run}: no amp-run there (scripts/build.sh builds "
                "it)")
    args.torch = have_torch()
    return args


def measure(model, args, tmp):
    """amp's and PyTorch's {op: ms a step} (PyTorch's None where it did not
    run), each op's median over args.repeats alternated runs."""
    name, spec, data, lr, twin, width = model
    path = source(spec, tmp)
    amp_runs, torch_runs = [], []
    for _ in range(args.repeats):
        amp_runs.append(amp_profile(args.amp_run, path, args.precision, data,
                                    lr, args.steps, tmp))
        if args.torch:
            torch_runs.append(torch_profile(twin, width, batch_of(path),
                                            args.precision, data, lr,
                                            args.steps, tmp))
    return (median_ops(amp_runs),
            median_ops(torch_runs) if args.torch else None)


def row(name, side, total, parts, largest):
    return (f"| {name} | {side} | {total:.1f} | {parts['products']:.1f} | "
            f"{parts['batched']:.1f} | {parts['rest']:.1f} | {largest} |")


def budget_note(name, goal, amp, torch_total):
    """What amp's step may take to lead PyTorch's by `goal`, and what that
    leaves beside amp's products."""
    total, parts, _ = amp
    budget = torch_total / goal
    return (f"{name}: {goal}x PyTorch's {torch_total:.1f} ms is "
            f"{budget:.1f} ms, which leaves "
            f"{budget - parts['products']:.1f} ms beside amp's "
            f"{parts['products']:.1f} ms of dense products and convolutions, "
            f"where amp spends {total - parts['products']:.1f}.")


def main():
    args = parse_args()
    goal = GOALS[args.precision]
    label = "PyTorch " + ("f32" if args.precision == "f32"
                          else "bf16 autocast")
    print("| model | side | op time a step | dense products and "
          "convolutions | batched products or fused attention | rest | "
          "largest of the rest |")
    print("|---|---|---:|---:|---:|---:|---|")
    notes = []
    with tempfile.TemporaryDirectory() as tmp:
        for model in MODELS:
            name = model[0]
            if name not in args.models:
                continue
            amp_ops, torch_ops = measure(model, args, tmp)
            amp = split(amp_ops, amp_kind)
            print(row(name, "amp " + args.precision, *amp), flush=True)
            if min(amp[0], *amp[1].values()) < 0:
                notes.append(
                    f"{name}: an amp figure below 0 is the difference of two "
                    "runs lost in the machine's noise: run more --steps.")
            if torch_ops is None:
                print(f"| {name} | {label} | n/a | n/a | n/a | n/a | PyTorch "
                      f"is not installed for {TORCH_PYTHON} |")
                continue
            theirs = split(torch_ops, torch_kind)
            print(row(name, label, *theirs), flush=True)
            notes.append(budget_note(name, goal, amp, theirs[0]))
    print()
    print(f"ms a step over {args.steps} steady steps, each op's median over "
          f"{args.repeats} alternated runs of each side; its own time (amp's "
          "C API calls with their bias and activation passes, PyTorch's ops' "
          "self time, where addmm's copy of its bias into the result is an "
          "aten::copy_ of the rest).")
    for note in notes:
        print(note)


if __name__ == "__main__":
    main()
