#!/usr/bin/env python3
"""Makes the GPU kit (scripts/gpu-kit.sh calls this): one folder with the
runtime-only source, GoogleTest's source, the models' steps compiled ahead
of time in every precision with their manifests, amp-run's CPU losses for
the examples, Fashion-MNIST, the PyTorch scripts and run.sh.

usage: make_kit.py ROOT BUILD DIR

ROOT is amp's source tree, BUILD its build (bin/amp-run), DIR the kit to
write: it must not exist; the kit is made beside it and renamed into place
when complete, so a failed run leaves nothing half-made under DIR.
"""
import datetime
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

LIMIT_BYTES = 48 * 1024 * 1024
PRECISIONS = ["f32", "f16", "bf16", "fp8"]
# The large models' steps again with --pad-tensor-cores, for the padded
# rows beside the unpadded ones.
PADDED_PRECISIONS = ["f16", "bf16"]
CPU_STEPS = 20
DATA = "/usr/share/datasets/fashion-mnist"
GTEST = "/usr/src/googletest/googletest"

# The three examples (docs/results.md's epochs and learning rates) and the
# models that fill an H200: the width-1024 transformer block at batch 256
# (and at width 1020, misaligned for Tensor Cores),
# the example CNN four times as wide at batch 512, ResNet-18 at batch 256,
# and the GPT character model at width 768 (12 layers, 12 heads, context
# 256) at batch 32 on the Jargon File. A generator is a script under amp's
# tree and its arguments; "data" is "text" for a language model.
MODELS = [
    {"name": "mlp_adam", "example": "mlp_adam.mlir", "batch": 32,
     "lr": 0.001, "epochs": 10, "torch": {"model": "mlp_adam"}},
    {"name": "cnn", "example": "cnn.mlir", "batch": 32, "lr": 0.01,
     "epochs": 8, "torch": {"model": "cnn"}},
    {"name": "transformer_block", "example": "transformer_block.mlir",
     "batch": 32, "lr": 0.05, "epochs": 2,
     "torch": {"model": "transformer_block"}},
    {"name": "transformer_1024", "generator": ["bench/transformer_model.py",
                                               "1024", "256"],
     "batch": 256, "lr": 0.01, "gpu_steps": 300,
     "torch": {"model": "transformer_block", "width": 1024}},
    # The same block 4 short of a multiple of 8, what --pad-tensor-cores
    # is for: its padded rows beside its unpadded ones (no PyTorch twin).
    {"name": "transformer_1020", "generator": ["bench/transformer_model.py",
                                               "1020", "256"],
     "batch": 256, "lr": 0.01, "gpu_steps": 300, "torch": None},
    {"name": "cnn_wide", "generator": ["bench/cnn_model.py", "4", "512"],
     "batch": 512, "lr": 0.001, "gpu_steps": 300,
     "torch": {"model": "cnn", "width": 4}},
    {"name": "resnet18", "generator": ["scripts/models/resnet.py",
                                       "--batch=256"],
     "batch": 256, "lr": 0.05, "gpu_steps": 100, "torch_steps": 100,
     "torch": {"model": "resnet18"}},
    {"name": "gpt_768", "generator": ["scripts/models/gpt.py", "--width=768",
                                      "--layers=12", "--heads=12",
                                      "--context=256", "--batch=32"],
     "batch": 32, "lr": 0.0003, "gpu_steps": 100, "torch_steps": 100,
     "data": "text", "torch": {"model": "gpt_char", "width": 768}},
]
TEXT = "/usr/share/doc/jargon-text/jargon.txt.gz"


def fail(message):
    sys.stderr.write(f"gpu-kit: {message}\n")
    sys.exit(1)


def run(cmd, env=None):
    done = subprocess.run(cmd, capture_output=True, text=True,
                          env={**os.environ, **(env or {})})
    if done.returncode != 0:
        fail(f"{' '.join(cmd)} failed (exit {done.returncode}):\n"
             + (done.stderr or done.stdout)[-2000:])
    return done.stdout


def source_files(root, folder):
    """The files of root/folder that git tracks or would track (the
    working tree, not only what is committed); every file without git."""
    try:
        listed = subprocess.run(
            ["git", "-C", root, "ls-files", "-co", "--exclude-standard",
             folder], capture_output=True, text=True, check=True).stdout
        return [f for f in listed.splitlines()
                if os.path.isfile(os.path.join(root, f))]
    except (OSError, subprocess.CalledProcessError):
        return [os.path.relpath(os.path.join(d, f), root)
                for d, _, files in os.walk(os.path.join(root, folder))
                for f in files]


def copy_sources(root, kit):
    for rel in source_files(root, "runtime"):
        dst = os.path.join(kit, "src", rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy2(os.path.join(root, rel), dst)
    if not os.path.isfile(os.path.join(GTEST, "CMakeLists.txt")):
        fail(f"no GoogleTest source at {GTEST} (apt install googletest)")
    shutil.copytree(GTEST, os.path.join(kit, "src", "googletest"))
    os.makedirs(os.path.join(kit, "kit"))
    for name in ("run.py", "parts.py", "profiling.py", "inventory.py",
                 "report.py", "goals.py", "files.py", "torch_models.py",
                 "torch_train.py", "torch_matmul.py"):
        shutil.copy2(os.path.join(root, "kit", name),
                     os.path.join(kit, "kit", name))
    shutil.copy2(os.path.join(root, "kit", "run.sh"),
                 os.path.join(kit, "run.sh"))
    shutil.copy2(os.path.join(root, "kit", "README.md"),
                 os.path.join(kit, "README.md"))


def model_source(root, model, scratch):
    if "example" in model:
        return os.path.join(root, "python-bindings-free-examples",
                            model["example"])
    path = os.path.join(scratch, model["name"] + ".mlir")
    script, *args = model["generator"]
    run([sys.executable, os.path.join(root, script), path, *args])
    return path


def compile_steps(root, build, kit, scratch):
    """Each model in each precision: the step object and manifest, and for
    the examples amp-run's losses over CPU_STEPS steps on the runtime's own
    loops (AMPRT_DNNL=0 AMPRT_BLAS=0: what the kit's runtime, built without
    oneDNN and OpenBLAS, runs). The large models train one step, on
    whatever the runtime has (their own loops would take minutes)."""
    amp_run = os.path.join(build, "bin", "amp-run")
    for d in ("steps", "expected"):
        os.makedirs(os.path.join(kit, d))
    for model in MODELS:
        source = model_source(root, model, scratch)
        for precision in PRECISIONS:
            name = f"{model['name']}-{precision}"
            small = "example" in model
            report = (os.path.join(kit, "expected", name + ".json") if small
                      else os.path.join(scratch, name + ".json"))
            print(f"gpu-kit: compiling {name}", flush=True)
            obj = f"--emit-obj={os.path.join(kit, 'steps', name + '.o')}"
            if not small:  # compiled only: a CPU step of these takes minutes
                run([amp_run, source, f"--precision={precision}",
                     "--compile-only", obj])
                continue
            run([amp_run, source, f"--precision={precision}",
                 f"--steps={CPU_STEPS}", "--seed=1", f"--lr={model['lr']}",
                 "--data=fashion-mnist", obj, f"--report={report}"],
                env={"AMPRT_DNNL": "0", "AMPRT_BLAS": "0"})
        if "example" not in model:
            compile_padded(amp_run, source, model, kit, scratch)


def compile_padded(amp_run, source, model, kit, scratch):
    """The model's steps with its parameter-owned dimensions padded to
    Tensor Core multiples (NAME-PRECISION-padded.o)."""
    for precision in PADDED_PRECISIONS:
        name = f"{model['name']}-{precision}-padded"
        print(f"gpu-kit: compiling {name}", flush=True)
        run([amp_run, source, f"--precision={precision}", "--pad-tensor-cores",
             "--compile-only",
             f"--emit-obj={os.path.join(kit, 'steps', name + '.o')}"])


def copy_text(kit):
    """The Jargon File, unpacked (a GPU machine may have no zlib)."""
    if not os.path.isfile(TEXT):
        fail(f"no {TEXT} (apt install jargon-text)")
    os.makedirs(os.path.join(kit, "data", "text"))
    with gzip.open(TEXT, "rb") as f:
        write_bytes(os.path.join(kit, "data", "text", "jargon.txt"), f.read())


def write_bytes(path, data):
    with open(path, "wb") as out:
        out.write(data)


def cpu_accuracy(root):
    """docs/results.md's test accuracy per "model precision"."""
    found = {}
    row = re.compile(r"^\| (\w+) \| (f32|f16|bf16|fp8) \| \d+ \| \d+ \| "
                     r"[\d.]+ \| ([\d.]+)% \|")
    with open(os.path.join(root, "docs", "results.md")) as f:
        for line in f:
            m = row.match(line)
            if m:
                found[f"{m.group(1)} {m.group(2)}"] = float(m.group(3)) / 100
    return found


def made(root):
    def git(*args):
        try:
            return subprocess.run(["git", "-C", root, *args],
                                  capture_output=True, text=True,
                                  check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            return None
    commit = git("rev-parse", "--short", "HEAD")
    if commit and git("status", "--porcelain", "--untracked-files=no"):
        commit += " with uncommitted changes"
    cpu = next((line.split(":", 1)[1].strip() for line in
                open("/proc/cpuinfo") if line.startswith("model name")),
               "unknown CPU")
    return {"date": datetime.date.today().isoformat(), "commit": commit,
            "cpu": cpu}


def write_spec(root, kit):
    models = []
    for m in MODELS:
        entry = {k: v for k, v in m.items() if k not in ("example",
                                                          "generator")}
        entry["small"] = "example" in m
        entry.setdefault("torch_steps", 300 if entry["small"] else 200)
        models.append(entry)
    spec = {"made": made(root), "precisions": PRECISIONS,
            "padded_precisions": PADDED_PRECISIONS,
            "cpu_steps": CPU_STEPS, "models": models,
            "cpu_accuracy": cpu_accuracy(root)}
    with open(os.path.join(kit, "kit.json"), "w") as f:
        json.dump(spec, f, indent=2)


def size_of(folder):
    return sum(os.path.getsize(os.path.join(d, f))
               for d, _, files in os.walk(folder) for f in files)


def main(argv):
    if len(argv) != 4:
        sys.stderr.write(__doc__)
        return 2
    root, build, target = (os.path.abspath(a) for a in argv[1:])
    if os.path.lexists(target):
        fail(f"{target} exists; remove it or name another folder")
    if not os.access(os.path.join(build, "bin", "amp-run"), os.X_OK):
        fail(f"no {build}/bin/amp-run (scripts/build.sh builds it)")
    parent = os.path.dirname(target)
    os.makedirs(parent, exist_ok=True)
    kit = tempfile.mkdtemp(prefix=".gpu-kit-", dir=parent)
    try:
        with tempfile.TemporaryDirectory() as scratch:
            copy_sources(root, kit)
            compile_steps(root, build, kit, scratch)
        shutil.copytree(DATA, os.path.join(kit, "data", "fashion-mnist"))
        copy_text(kit)
        write_spec(root, kit)
        size = size_of(kit)
        if size > LIMIT_BYTES:
            fail(f"the kit is {size / 2**20:.1f} MiB, over the 48 MiB limit")
        os.chmod(kit, 0o755)
        os.rename(kit, target)
    finally:
        if os.path.exists(kit):
            shutil.rmtree(kit)
    print(f"gpu-kit: {target} ({size / 2**20:.1f} MiB); on the GPU machine "
          f"run {target}/run.sh OUT")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
