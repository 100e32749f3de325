#!/usr/bin/env python3
"""The GPU kit's one command: build the runtime, test it, measure, report.

usage: run.py OUT        (the kit's run.sh calls this)

Builds the kit's runtime-only source (no LLVM, MLIR, OpenBLAS, oneDNN or
MPI needed) for the machine's GPU, prints an inventory, runs the runtime's
tests, trains each small example's compiled step on the CPU and compares
its losses with amp-run's, and, where there is a GPU, measures the GEMM and
convolution table and every training run beside PyTorch's. Each part is
reported on its own: one that fails or runs out of time says so, and the
rest still run. Writes OUT/report.md, OUT/report.json and OUT/logs/.

Environment: KIT_BUDGET_S (seconds for everything, default 540),
KIT_JOBS (build jobs, default the core count), KIT_NO_GPU=1 (run the CPU
half only, as on a machine without a GPU), KIT_PARTS (a comma-separated
list of the parts to run after the inventory and the build, which always
run; the others are reported as skipped), KIT_TESTS (a ctest -R regular
expression: the tests part runs only those), KIT_MODELS (a comma-separated
list of kit.json's models: every part trains only those).
"""
import os
import sys
import time

import parts as p
import report
from parts import Kit, skipped
from profiling import gpu_profile_part

# The parts every run has (KIT_PARTS chooses among the others).
ALWAYS = ("inventory", "build")
PARTS = [("inventory", p.inventory_part), ("build", p.build_part),
         ("tests", p.tests_part), ("cpu_training", p.cpu_training_part),
         ("gemm", p.gemm_part), ("gpu_speed", p.gpu_speed_part),
         ("gpu_padding", p.gpu_padding_part),
         ("gpu_profile", gpu_profile_part),
         ("torch_training", p.torch_training_part),
         ("gpu_accuracy", p.gpu_accuracy_part)]


def chosen_parts(listed):
    """The parts KIT_PARTS names (all when unset), with those that always
    run; ValueError for a name that is no part."""
    if not listed:
        return {name for name, _ in PARTS}
    names = {n.strip() for n in listed.split(",") if n.strip()}
    unknown = names - {name for name, _ in PARTS}
    if unknown:
        raise ValueError(", ".join(sorted(unknown)))
    return names | set(ALWAYS)


def chosen_models(models, listed):
    """kit.json's models that KIT_MODELS names (all when unset), in the
    kit's order; ValueError for a name that is no model."""
    if not listed:
        return models
    names = {n.strip() for n in listed.split(",") if n.strip()}
    unknown = names - {m["name"] for m in models}
    if unknown or not names:
        raise ValueError(", ".join(sorted(unknown)) or "(none)")
    return [m for m in models if m["name"] in names]


def main(argv):
    if len(argv) != 2 or argv[1].startswith("-"):
        sys.stderr.write(__doc__)
        return 2
    out = os.path.abspath(argv[1])
    try:
        os.makedirs(os.path.join(out, "logs"), exist_ok=True)
    except OSError as e:
        sys.stderr.write(f"run.py: cannot create {out}: {e.strerror}\n")
        return 1
    try:
        budget = float(os.environ.get("KIT_BUDGET_S", "540"))
    except ValueError:
        sys.stderr.write("run.py: KIT_BUDGET_S must be a number of seconds\n")
        return 2
    try:
        chosen = chosen_parts(os.environ.get("KIT_PARTS"))
    except ValueError as e:
        parts = ", ".join(name for name, _ in PARTS)
        sys.stderr.write(f"run.py: KIT_PARTS names no part {e} (the parts: "
                         f"{parts})\n")
        return 2
    try:
        kit = Kit(out, time.monotonic() + budget)
    except (OSError, ValueError) as e:
        sys.stderr.write(f"run.py: cannot read the kit's kit.json ({e}); "
                         "run the kit scripts/gpu-kit.sh made\n")
        return 1
    try:
        kit.facts["kit"]["models"] = chosen_models(
            kit.facts["kit"]["models"], os.environ.get("KIT_MODELS"))
    except ValueError as e:
        models = ", ".join(m["name"] for m in kit.facts["kit"]["models"])
        sys.stderr.write(f"run.py: KIT_MODELS names no model {e} (the "
                         f"models: {models})\n")
        return 2
    results = {}
    for name, part in PARTS:
        results[name] = (kit.run_part(name, part) if name in chosen
                         else skipped("not in KIT_PARTS"))
    report.write(out, kit.facts, results)
    print(f"run.py: report in {out}/report.md and {out}/report.json")
    failed = [n for n, r in results.items() if r.get("status") == "failed"]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
