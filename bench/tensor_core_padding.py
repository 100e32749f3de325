#!/usr/bin/env python3
"""Trains each example with and without --pad-tensor-cores, side by side.

usage: tensor_core_padding.py BUILD [--steps=N] [--repeats=R] [--isa=ISA ...]
                              [--models=NAME,...]

For every example model and low precision, amp-run trains N steps (default
100) of synthetic data with the step as written and with its
parameter-owned misaligned dimensions padded to Tensor Core multiples; the
two runs alternate R times (default 3) and the table gives the median
samples/s of each (training time only, from the report), their ratio, and
the largest relative gap between the two runs' per-step losses. The
"aligned" column is amp-opt's summary of the unpadded and the padded step.
--isa runs every row again under ONEDNN_MAX_CPU_ISA=ISA (AVX2,
AVX512_CORE_BF16, ...), to see whether a kernel family prefers aligned
sizes. On a GPU the padding is for Tensor Cores; on a CPU this says what it
costs or gains with oneDNN's kernels.
"""
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

MODELS = ("mlp_train_step", "mlp_adam", "cnn", "transformer_block")
PRECISIONS = ("f16", "bf16")


def aligned(build, model, padded):
    """amp-opt's one-line Tensor Core summary of the model's step, cut to
    'A/T'."""
    options = "pad-tensor-cores=true" if padded else ""
    run = subprocess.run(
        [os.path.join(build, "bin", "amp-opt"), model,
         f"--amp-pipeline={options}", "-o", "/dev/null"],
        capture_output=True, text=True, check=True)
    found = re.search(r"Tensor Cores: (\d+) of (\d+)", run.stderr)
    return f"{found.group(1)}/{found.group(2)}" if found else "-"


def train(build, model, precision, padded, steps, isa, report):
    """One amp-run; its report."""
    env = dict(os.environ)
    if isa:
        env["ONEDNN_MAX_CPU_ISA"] = isa
    argv = [os.path.join(build, "bin", "amp-run"), model,
            f"--precision={precision}", f"--steps={steps}",
            f"--log-every={steps}", f"--report={report}"]
    if padded:
        argv.append("--pad-tensor-cores")
    subprocess.run(argv, env=env, capture_output=True, check=True)
    with open(report) as f:
        return json.load(f)


def loss_gap(a, b):
    return max(abs(x["loss"] - y["loss"]) / max(abs(x["loss"]), 1e-30)
               for x, y in zip(a["per_step"], b["per_step"]))


def row(build, examples, name, precision, steps, repeats, isa, work):
    model = os.path.join(examples, name + ".mlir")
    rates = {False: [], True: []}
    reports = {}
    for _ in range(repeats):
        for padded in (False, True):
            path = os.path.join(work, f"{name}-{precision}-{padded}.json")
            reports[padded] = train(build, model, precision, padded, steps,
                                    isa, path)
            rates[padded].append(reports[padded]["samples_per_second"])
    plain = statistics.median(rates[False])
    padded = statistics.median(rates[True])
    return (f"| {name} | {precision} | {isa or 'native'} | "
            f"{aligned(build, model, False)} -> {aligned(build, model, True)} | "
            f"{plain:.0f} | {padded:.0f} | {padded / plain:.2f} | "
            f"{loss_gap(reports[False], reports[True]):.1e} |")


def main(argv):
    if len(argv) < 2 or argv[1].startswith("-"):
        sys.stderr.write(__doc__)
        return 2
    build = argv[1]
    steps, repeats, isas, models = 100, 3, [""], MODELS
    for a in argv[2:]:
        if a.startswith("--steps="):
            steps = int(a.split("=", 1)[1])
        elif a.startswith("--repeats="):
            repeats = int(a.split("=", 1)[1])
        elif a.startswith("--isa="):
            isas.append(a.split("=", 1)[1])
        elif a.startswith("--models="):
            models = a.split("=", 1)[1].split(",")
        else:
            sys.stderr.write(f"unknown argument {a}\n" + __doc__)
            return 2
    examples = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                            "python-bindings-free-examples")
    print("| model | precision | oneDNN ISA | aligned (as written -> padded) "
          "| samples/s | padded | ratio | largest loss gap |")
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as work:
        for isa in isas:
            for name in models:
                for precision in PRECISIONS:
                    print(row(build, examples, name, precision, steps,
                              repeats, isa, work), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
