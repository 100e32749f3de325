#!/usr/bin/env python3
"""The real-size models' CPU training step, amp beside PyTorch on the same
machine: ResNet-18 (batch 64), the GPT character model (batch 32), and the
transformer blocks of bench/transformer_model.py at widths 512 and 1024
(batch 64). amp-run in f32, f16 and bf16; PyTorch eager (the twins in
kit/torch_models.py: same layers, initialisers, optimizer, batch) in f32
and under torch.autocast(bfloat16). Each side's step time is the median
after 5 warm-up steps of a run; the runs alternate REPEATS times and the
table gives each figure's median over them, then the ratios.

usage: model_speed.py BUILD [--steps=N] [--repeats=R] [--models=a,b]

PyTorch runs under Debian's /usr/bin/python3 (python3-torch). Goals (the
real-size models issue): amp f32 at least 3x PyTorch eager f32; amp bf16 at
least 1.3x PyTorch's bf16 autocast step where the CPU has bf16 arithmetic
(AVX-512 BF16 or AMX); amp f16 not slower than amp f32 where it has
AVX-512 FP16.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

from amp_run_report import run_report

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "python-bindings-free-examples")
TORCH_PYTHON = "/usr/bin/python3"

# name, amp source (example file, or a generator and its arguments), data,
# lr, PyTorch twin, width.
MODELS = [
    ("resnet18", os.path.join(EXAMPLES, "resnet18.mlir"), "synthetic", 0.05,
     "resnet18", 64),
    ("gpt_char", os.path.join(EXAMPLES, "gpt_char.mlir"), "text", 3e-4,
     "gpt_char", 256),
    ("transformer_512", ["transformer_model.py", "512", "64"], "synthetic",
     0.01, "transformer_block", 512),
    ("transformer_1024", ["transformer_model.py", "1024", "64"], "synthetic",
     0.01, "transformer_block", 1024),
]


def source(spec, tmp):
    """The model's MLIR file: the example, or the generator's output."""
    if isinstance(spec, str):
        return spec
    script, *args = spec
    path = os.path.join(tmp, f"{script}-{'-'.join(args)}.mlir")
    subprocess.run([sys.executable, os.path.join(ROOT, "bench", script), path,
                    *args], check=True)
    return path


def have_torch():
    """Whether Debian's PyTorch is installed for TORCH_PYTHON."""
    return os.path.exists(TORCH_PYTHON) and subprocess.run(
        [TORCH_PYTHON, "-c", "import torch"],
        capture_output=True).returncode == 0


def batch_of(path):
    """The leading dimension of the model's input."""
    for line in open(path):
        if 'tg.role = "input"' in line:
            return int(line.split("tensor<")[1].split("x")[0])
    raise ValueError(f"{path}: no input")


def torch_step_ms(twin, width, batch, data, lr, steps, tmp):
    """{precision: median step ms} of the PyTorch twin, f32 and bf16."""
    out = os.path.join(tmp, "torch.json")
    subprocess.run([TORCH_PYTHON, os.path.join(ROOT, "kit", "torch_train.py"),
                    f"--model={twin}", f"--width={width}", f"--batch={batch}",
                    f"--steps={steps}", "--precision=f32,bf16", "--mode=eager",
                    "--device=cpu", f"--data={data}", f"--lr={lr}",
                    f"--json={out}"], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return {r["precision"]: r.get("step_ms") for r in json.load(open(out))}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("build")
    p.add_argument("--steps", type=int, default=15)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--models", default=",".join(m[0] for m in MODELS))
    args = p.parse_args()
    amp_run = os.path.join(args.build, "bin", "amp-run")
    chosen = args.models.split(",")
    torch_installed = have_torch()
    print("| model | batch | amp f32 | amp f16 | amp bf16 | PyTorch f32 | "
          "PyTorch bf16 autocast | PyTorch f32 / amp f32 | PyTorch bf16 / "
          "amp bf16 | amp f32 / amp f16 |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for name, spec, data, lr, twin, width in MODELS:
            if name not in chosen:
                continue
            path = source(spec, tmp)
            batch = batch_of(path)
            times = {k: [] for k in ("f32", "f16", "bf16", "t32", "t16")}
            for _ in range(args.repeats):
                for precision in ("f32", "f16", "bf16"):
                    times[precision].append(run_report(
                        amp_run, path, precision, args.steps, lr,
                        data=data)[1])
                if torch_installed:
                    got = torch_step_ms(twin, width, batch, data, lr,
                                        args.steps, tmp)
                    times["t32"].append(got.get("f32"))
                    times["t16"].append(got.get("bf16"))
            med = {k: statistics.median(v) if v and None not in v else None
                   for k, v in times.items()}

            def cell(v):
                return f"{v:.1f}" if v else "n/a"

            def ratio(a, b):
                return f"{a / b:.2f}" if a and b else "n/a"
            print(f"| {name} | {batch} | {cell(med['f32'])} | "
                  f"{cell(med['f16'])} | {cell(med['bf16'])} | "
                  f"{cell(med['t32'])} | {cell(med['t16'])} | "
                  f"{ratio(med['t32'], med['f32'])} | "
                  f"{ratio(med['t16'], med['bf16'])} | "
                  f"{ratio(med['f32'], med['f16'])} |", flush=True)
    print()
    print("Step times in ms, medians of " + str(args.repeats) + " alternated "
          "runs (each the median after 5 warm-up steps)." +
          ("" if torch_installed else " PyTorch is not installed for "
           "/usr/bin/python3 (apt install python3-torch): its columns are "
           "n/a."))


if __name__ == "__main__":
    main()
