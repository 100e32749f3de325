#!/usr/bin/env python3
"""The AMP pass on the IR other compilers produce: ResNet-18 and a BERT-base
encoder layer, each as torch-mlir-style linalg (dynamic batch) and as TOSA,
emitted by scripts/models/generate_model.py.

Per model: contractions converted / total (the report's allow ops that end
in f16), casts beside the minimum number of boundary crossings
(cast_boundaries.py), and the pass's median wall time (--mlir-timing, the
pass alone, parsing excluded) over REPEATS runs. Weights are arguments
(--weights=args); bench/constant_folding.py covers trained-weight constants.

Usage: foreign_models.py BUILD_DIR [--repeats N] [--check]
  --check: exit non-zero unless every contraction is converted, every
           output verifies with upstream mlir-opt-22, and no cast is wasted.
"""
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cast_boundaries  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GENERATOR = os.path.join(ROOT, "scripts", "models", "generate_model.py")
MODELS = [("resnet18", "linalg"), ("resnet18", "tosa"),
          ("bert-base", "linalg"), ("bert-base", "tosa")]


def run(cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True)


def pass_ms(amp_opt, path):
    out = run([amp_opt, path, "--amp-auto-mixed-precision", "--mlir-timing",
               "--mlir-timing-display=list", "-o", os.devnull]).stderr
    m = re.search(r"^\s*([0-9.]+)\s*\(\s*[0-9.]+%\)\s*AutoMixedPrecisionPass",
                  out, re.M)
    if not m:
        sys.exit("no AutoMixedPrecisionPass line in --mlir-timing output")
    return float(m.group(1)) * 1e3


def measure(build, model, dialect, repeats, tmp):
    amp_opt = os.path.join(build, "bin", "amp-opt")
    source = os.path.join(tmp, f"{model}-{dialect}.mlir")
    run([sys.executable, GENERATOR, model, dialect, "-o", source])
    report = os.path.join(tmp, f"{model}-{dialect}.json")
    converted_ir = os.path.join(tmp, f"{model}-{dialect}.out.mlir")
    run([amp_opt, source, f"--amp-auto-mixed-precision=report={report}",
         "-o", converted_ir])
    generic = run([amp_opt, converted_ir, "--mlir-print-op-generic"]).stdout
    casts, boundaries = cast_boundaries.count(generic)
    allow = [op for op in json.load(open(report))["ops"]
             if op["class"] == "allow"]
    low = sum(op["precision"] != "f32" for op in allow)
    verified = subprocess.run(["mlir-opt-22", converted_ir, "-o", os.devnull],
                              capture_output=True, text=True).returncode == 0
    times = [pass_ms(amp_opt, source) for _ in range(repeats)]
    return {"low": low, "allow": len(allow), "casts": casts,
            "boundaries": boundaries, "ms": statistics.median(times),
            "verified": verified}


def rows(build, repeats=5):
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        for model, dialect in MODELS:
            r = measure(build, model, dialect, repeats, tmp)
            case = f"{model} ({dialect})"
            out.append((r, [
                ("contractions in f16", case, f"{r['low']}", f"{r['allow']} total",
                 f"{r['low'] / r['allow']:.2f}", "allow ops the report lists"),
                ("casts (foreign IR)", case, f"{r['casts']} casts",
                 f"{r['boundaries']} boundaries",
                 f"{r['casts'] / r['boundaries']:.2f}" if r["boundaries"] else "-",
                 "1.00 = no wasted cast"),
                ("pass time (foreign IR)", case, f"{r['ms']:.1f} ms", "-", "-",
                 f"median of {repeats}; output verifies upstream: "
                 f"{'yes' if r['verified'] else 'NO'}"),
            ]))
    return out


def main():
    args = sys.argv[1:]
    check = "--check" in args
    repeats = 5
    if "--repeats" in args:
        repeats = int(args[args.index("--repeats") + 1])
    build = args[0]
    failures = []
    print("| benchmark | case | amp | baseline | amp / baseline | note |")
    print("|---|---|---:|---:|---:|---|")
    for r, table in rows(build, repeats):
        for row in table:
            print("| " + " | ".join(row) + " |")
        if r["low"] != r["allow"] or r["casts"] != r["boundaries"] or \
                not r["verified"]:
            failures.append(table[0][1])
    if check and failures:
        sys.exit("claims not met for: " + ", ".join(failures))


if __name__ == "__main__":
    main()
