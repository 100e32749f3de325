#!/usr/bin/env python3
"""Checks a GPU kit run made on a machine without a GPU (OUT of run.sh):
the runtime built without oneDNN and OpenBLAS and links neither them nor
LLVM or MLIR, its tests passed, every example trained in every precision
with amp-run's losses bit for bit, and the GPU half says why it did not
run. Prints each failure; exit 1 when there is one.

usage: check_cpu_half.py OUT
"""
import json
import os
import subprocess
import sys

FORBIDDEN = ("libLLVM", "libMLIR", "libmlir", "libclang", "libdnnl",
             "libopenblas", "libblas")
GPU_PARTS = ("gemm", "gpu_speed", "gpu_padding", "gpu_profile",
             "torch_training", "gpu_accuracy")


def needed(path):
    """The DT_NEEDED libraries of an ELF file ([] for other files)."""
    with open(path, "rb") as f:
        if f.read(4) != b"\x7fELF":
            return []
    text = subprocess.run(["readelf", "-d", path], capture_output=True,
                          text=True).stdout
    return [line.split("[", 1)[1].rstrip("]") for line in text.splitlines()
            if "(NEEDED)" in line]


def linkage_problems(build):
    problems, checked = [], 0
    for folder in ("bin", "lib"):
        root = os.path.join(build, folder)
        for name in sorted(os.listdir(root)) if os.path.isdir(root) else []:
            path = os.path.join(root, name)
            if os.path.islink(path) or not os.path.isfile(path):
                continue
            libs = needed(path)
            checked += bool(libs)
            problems += [f"{folder}/{name} links {lib}" for lib in libs
                         if lib.startswith(FORBIDDEN)]
    if checked < 3:
        problems.append(f"only {checked} ELF files under {build}/bin, lib")
    return problems


def report_problems(report):
    problems = []
    parts = report["parts"]
    for name in ("build", "tests", "cpu_training"):
        if parts.get(name, {}).get("status") != "ok":
            problems.append(f"part {name}: {parts.get(name)}")
    for name in GPU_PARTS:
        part = parts.get(name, {})
        if part.get("status") != "skipped" or not part.get("reason"):
            problems.append(f"part {name} should be skipped with a reason: "
                            f"{part}")
    libraries = report.get("libraries") or {}
    for name in ("openblas", "onednn"):
        if libraries.get(name) is not None:
            problems.append(f"the kit's runtime found {name}: "
                            f"{libraries[name]}")
    cpu_runs = [r for r in report["training_runs"] if r.get("device") == "cpu"]
    if len(cpu_runs) != 12:
        problems.append(f"{len(cpu_runs)} CPU runs, not 3 examples x 4 "
                        "precisions")
    problems += [f"{r['model']} {r['precision']}: losses differ from "
                 f"amp-run's (max {r.get('max_loss_difference')})"
                 for r in cpu_runs if r.get("same_losses_as_amp_run") is not
                 True]
    if report["tests"].get("passed", 0) < 50:
        problems.append(f"too few runtime tests ran: {report['tests']}")
    return problems


def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    out = argv[1]
    with open(os.path.join(out, "report.json")) as f:
        report = json.load(f)
    problems = report_problems(report) + linkage_problems(
        os.path.join(out, "build"))
    for p in problems:
        print("check_cpu_half:", p)
    if not problems:
        print("check_cpu_half: the kit's CPU half built without LLVM, MLIR, "
              "OpenBLAS and oneDNN, passed its tests and matched amp-run")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
