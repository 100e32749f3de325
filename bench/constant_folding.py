#!/usr/bin/env python3
"""The AMP pass on models with trained-like weights in the IR.

For ResNet-18, ResNet-50 and a BERT-base encoder layer (torch-mlir-style
linalg, scripts/models/generate_model.py --weights constants: N(0, std)
weights with about 1% exact zeros and 0.1% values below f16's smallest
normal), prints the pass's median wall time (--mlir-timing: the pass alone,
parsing excluded; configurations alternated, median of REPEATS) alone and
with report=, remarks=true and annotate=true,
the weight values it folds, and the time per folded value. Targets (issue
20): report / remarks / annotate at most 1.2x the pass alone, at most 20 ns
per folded weight value.

Usage: constant_folding.py BUILD_DIR [--models m1,m2] [--width W] [--repeats N]
"""
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GENERATOR = os.path.join(ROOT, "scripts", "models", "generate_model.py")


def run(cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True)


def pass_ms(amp_opt, path, options):
    out = run([amp_opt, path, f"--amp-auto-mixed-precision={options}",
               "--mlir-timing", "--mlir-timing-display=list", "-o",
               os.devnull]).stderr
    m = re.search(r"^\s*([0-9.]+)\s*\(\s*[0-9.]+%\)\s*AutoMixedPrecisionPass",
                  out, re.M)
    if not m:
        sys.exit("no AutoMixedPrecisionPass line in --mlir-timing output")
    return float(m.group(1)) * 1e3


def main():
    args = sys.argv[1:]
    build = args[0]
    models = ["resnet18", "resnet50", "bert-base"]
    width, repeats = 1.0, 7
    if "--models" in args:
        models = args[args.index("--models") + 1].split(",")
    if "--width" in args:
        width = float(args[args.index("--width") + 1])
    if "--repeats" in args:
        repeats = int(args[args.index("--repeats") + 1])
    amp_opt = os.path.join(build, "bin", "amp-opt")
    print("| model | weight values folded | pass alone | report= | remarks=true "
          "| annotate=true | ns per folded value |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for model in models:
            source = os.path.join(tmp, f"{model}.mlir")
            cmd = [sys.executable, GENERATOR, model, "linalg", "--weights",
                   "constants", "-o", source]
            if model != "bert-base":
                cmd += ["--width", str(width)]
            run(cmd)
            report = os.path.join(tmp, "r.json")
            run([amp_opt, source, f"--amp-auto-mixed-precision=report={report}",
                 "-o", os.devnull])
            values = json.load(open(report))["totals"]["constant_values"]
            # Configurations alternate within each round, so the machine's
            # noise falls on all of them alike.
            configs = ("", f"report={report}", "remarks=true", "annotate=true")
            times = {c: [] for c in configs}
            for _ in range(repeats):
                for c in configs:
                    times[c].append(pass_ms(amp_opt, source, c))
            cells = [statistics.median(times[c]) for c in configs]
            alone = cells[0]
            ratios = [f"{c:.0f} ms ({c / alone:.2f}x)" for c in cells[1:]]
            ns = alone * 1e6 / values if values else float("nan")
            print(f"| {model} | {values:,} | {alone:.0f} ms | " +
                  " | ".join(ratios) + f" | {ns:.1f} |")


if __name__ == "__main__":
    main()
