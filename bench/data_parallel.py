#!/usr/bin/env python3
"""Data-parallel training on this machine: samples/s of one process and of
two ranks under mpirun, and what the ranks send per step with f32, f16 and
bf16 gradients on the wire (amp-run --report's data_parallel section).

Each rank runs one OpenMP thread (ranks x threads = cores); the one-process
rows use every core, as a single amp-run does. Usage: data_parallel.py BUILD
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = [("mlp_adam", 300), ("cnn", 60)]


def run(cmd, env=None):
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "r.json")
        subprocess.run(cmd + [f"--report={report}", "--log-every=1000000"],
                       check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, env=env)
        return json.load(open(report))


def main():
    build = sys.argv[1]
    amp_run = os.path.join(build, "bin", "amp-run")
    if not shutil.which("mpirun") or not os.path.exists(
            os.path.join(build, "lib", "libamprt_mpi.so")):
        print("(no MPI: install openmpi-bin libopenmpi-dev and rebuild)")
        return
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_btl_vader_single_copy_mechanism="none")
    mpirun = ["mpirun", "--oversubscribe", "-x", "OMP_NUM_THREADS=1", "-np", "2"]
    print("| model | precision | run | global batch | samples/s | collectives/step | bytes sent/step (rank 0) |")
    print("|---|---|---|---:|---:|---:|---:|")
    for model, steps in MODELS:
        example = os.path.join(ROOT, "python-bindings-free-examples", model + ".mlir")
        for precision in ("f32", "f16"):
            base = [amp_run, example, f"--precision={precision}", f"--steps={steps}",
                    "--data=fashion-mnist"]
            rows = [("1 process", run(base, env)),
                    ("1 process, data-parallel", run(base + ["--data-parallel"], env))]
            wires = ["f32", "f16"] if precision == "f16" else ["f32", "bf16"]
            for wire in wires:
                rows.append((f"2 ranks, grad-comm={wire}",
                             run(mpirun + base + [f"--grad-comm={wire}"], env)))
            for name, r in rows:
                dp = r.get("data_parallel", {})
                global_batch = dp.get("global_batch", r["batch"])
                print(f"| {model} | {precision} | {name} | {global_batch} | "
                      f"{r['samples_per_second']:.0f} | "
                      f"{dp.get('collectives_per_step', 0):.0f} | "
                      f"{dp.get('bytes_sent_per_step', 0):.0f} |")


if __name__ == "__main__":
    main()
