"""The parts of the GPU kit's run, in the order they run.

Each part takes the Kit and returns a dict with "status" ("ok", "failed"
or "skipped"), "reason" when not ok, and what it measured. A part that
raises is reported as failed with the error; the next part still runs.
"""
import gzip
import os
import shutil
import statistics
import subprocess
import time

import inventory
from files import read_json

KIT_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WARMUP_STEPS = 5


class Kit:
    """Paths, the time budget, the facts gathered so far, and a runner
    that logs every command to OUT/logs."""

    def __init__(self, out, deadline):
        self.out, self.deadline = out, deadline
        self.build = os.path.join(out, "build")
        self.facts = {"kit": self.load("kit.json")}
        self.gpu_reason = None  # why the GPU half does not run, once known
        self.build_ok = False  # binaries from an earlier build do not count

    def load(self, name):
        return read_json(os.path.join(KIT_DIR, name))

    def left(self):
        return self.deadline - time.monotonic()

    def sh(self, cmd, log, timeout=None, env=None, cwd=None):
        """Runs cmd with its output in logs/LOG; returns (exit code, s).
        The exit code is None when the command ran out of time."""
        limit = max(1.0, min(timeout or self.left(), self.left()))
        path = os.path.join(self.out, "logs", log)
        start = time.monotonic()
        with open(path, "a") as f:
            f.write("$ " + " ".join(cmd) + "\n")
            f.flush()
            try:
                rc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT,
                                    env={**os.environ, **(env or {})},
                                    cwd=cwd, timeout=limit).returncode
            except subprocess.TimeoutExpired:
                f.write(f"\n[killed after {limit:.0f} s: out of time]\n")
                rc = None
            except OSError as e:
                f.write(f"\n[cannot run: {e.strerror}]\n")
                rc = 127
        return rc, time.monotonic() - start

    def tail(self, log, lines=8):
        with open(os.path.join(self.out, "logs", log)) as f:
            return "".join(f.readlines()[-lines:]).strip()

    def run_part(self, name, part):
        print(f"run.py: {name} ({self.left():.0f} s left)", flush=True)
        if self.left() < 5:
            return skipped("out of time (KIT_BUDGET_S)")
        try:
            result = part(self)
        except Exception as e:  # one broken part must not stop the rest
            result = failed(f"{type(e).__name__}: {e}")
        print(f"run.py: {name}: {result['status']}"
              + (f" ({result['reason']})" if result.get("reason") else ""),
              flush=True)
        return result

    def binary(self, name):
        return os.path.join(self.build, "bin", name)

    def built(self):
        return self.build_ok


def ok(**fields):
    return {"status": "ok", **fields}


def failed(reason, **fields):
    return {"status": "failed", "reason": reason, **fields}


def skipped(reason, **fields):
    return {"status": "skipped", "reason": reason, **fields}


def inventory_part(kit):
    facts = inventory.gather(kit)
    kit.facts["inventory"] = facts
    kit.gpu_reason = inventory.gpu_unavailable(facts)
    return ok(**facts)


def build_part(kit):
    cmake = shutil.which("cmake")
    if not cmake:
        return failed("no cmake on PATH")
    args = [cmake, "-S", os.path.join(KIT_DIR, "src", "runtime"),
            "-B", kit.build, "-DCMAKE_BUILD_TYPE=Release",
            "-DAMPRT_GTEST_SOURCE_DIR="
            + os.path.join(KIT_DIR, "src", "googletest")]
    if shutil.which("ninja"):
        args += ["-G", "Ninja"]
    if kit.gpu_reason is None:
        args.append("-DCMAKE_CUDA_ARCHITECTURES="
                    + kit.facts["inventory"]["gpu"]["architecture"])
    else:
        args.append("-DAMP_ENABLE_CUDA=OFF")
    rc, configure_s = kit.sh(args, "build.log")
    if rc != 0:
        return failed("cmake configure failed: " + kit.tail("build.log"))
    jobs = os.environ.get("KIT_JOBS", str(os.cpu_count() or 2))
    rc, build_s = kit.sh([cmake, "--build", kit.build, "-j", jobs],
                         "build.log")
    if rc != 0:
        return failed("build failed: " + kit.tail("build.log"))
    found = read_json(os.path.join(kit.build, "amprt-build.json"))
    kit.facts["libraries"] = found
    kit.build_ok = True
    return ok(seconds=round(configure_s + build_s, 1), libraries=found)


def tests_part(kit):
    if not kit.built():
        return skipped("the build failed")
    junit = os.path.join(kit.out, "ctest.xml")
    env = {"AMP_REQUIRE_CUDA": "0" if kit.gpu_reason else "1"}
    only = os.environ.get("KIT_TESTS")
    rc, seconds = kit.sh(["ctest", "-j",
                          str(os.cpu_count() or 2), "--timeout", "300",
                          "--output-junit", junit]
                         + (["-R", only] if only else []), "tests.log",
                         env=env, cwd=kit.build)
    counts = inventory.junit_counts(junit)
    result = {"seconds": round(seconds, 1), **counts}
    if rc is None:
        return failed("ctest ran out of time", **result)
    if rc != 0 or counts.get("failed"):
        return failed(f"{counts.get('failed', '?')} tests failed", **result)
    return ok(**result)


def amp_train(kit, model, precision, device, steps, log, timeout=None,
              env=None, variant=""):
    """Trains the kit's compiled step (NAME-PRECISION[VARIANT].o); returns
    (report dict or None, why)."""
    step = os.path.join(KIT_DIR, "steps",
                        f"{model['name']}-{precision}{variant}.o")
    out = os.path.join(kit.out, "runs", f"amp-{model['name']}-{precision}"
                       f"{variant}-{device}.json")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    args = [kit.binary("amp-train"), step, f"--device={device}",
            f"--data={data_flag(kit, model)}", "--seed=1",
            f"--lr={model['lr']}", f"--report={out}"]
    args += [f"--steps={steps}"] if steps else [f"--epochs={model['epochs']}"]
    rc, _ = kit.sh(args, log, timeout=timeout, env=env)
    if rc != 0:
        return None, (out_of_time(kit) if rc is None else
                      f"amp-train exit {rc}: " + kit.tail(log, 3))
    return read_json(out), None


def out_of_time(kit):
    """Why a command was stopped: the whole run's budget, or its own
    time limit."""
    return ("out of time (KIT_BUDGET_S)" if kit.left() < 1
            else "ran past its time limit")


def text_file():
    """The kit's text for language models (unpacked Jargon File)."""
    return os.path.join(KIT_DIR, "data", "text", "jargon.txt")


def data_flag(kit, model):
    """amp-train's --data for `model`: the kit's text or Fashion-MNIST."""
    if model.get("data") == "text":
        return f"text:{text_file()}"
    return f"fashion-mnist:{data_dir(kit)}"


def data_dir(kit):
    """Fashion-MNIST as plain IDX files (amp-train reads them without
    zlib, which a GPU machine may lack), unpacked once into OUT."""
    plain = os.path.join(kit.out, "data")
    if not os.path.exists(os.path.join(plain, "done")):
        os.makedirs(plain, exist_ok=True)
        src = os.path.join(KIT_DIR, "data", "fashion-mnist")
        for name in sorted(os.listdir(src)):
            with gzip.open(os.path.join(src, name)) as f, \
                    open(os.path.join(plain, name[:-3]), "wb") as g:
                shutil.copyfileobj(f, g)
        open(os.path.join(plain, "done"), "w").close()
    return plain


def amp_row(model, precision, device, framework="amp", **fields):
    """A row of report.json's training runs for one of amp's runs."""
    return {"model": model["name"], "framework": framework,
            "precision": precision, "device": device, **fields}


def run_row(model, precision, device, report, framework="amp"):
    """One row of report.json's training runs from an amp-train report."""
    times = [s["time_ms"] for s in report["per_step"]][WARMUP_STEPS:]
    return amp_row(model, precision, device, framework,
                   batch=report["batch"], steps=report["steps"],
                   skipped_steps=report["skipped_steps"],
                   final_loss=report["final_loss"],
                   step_ms=statistics.median(times) if times else None,
                   samples_per_s=report["samples_per_second"],
                   peak_bytes=report["peak_step_bytes"],
                   test_accuracy=report.get("final_accuracy"),
                   val_loss=report.get("final_val_loss"))


# The runtime's own loops under every product, as amp-run ran for expected/
# (the kit's build may or may not have found oneDNN and OpenBLAS).
OWN_LOOPS = {"AMPRT_DNNL": "0", "AMPRT_BLAS": "0"}


def cpu_training_part(kit):
    """Each small example in each precision on the CPU, beside the losses
    amp-run had for the same step and flags when the kit was made."""
    if not kit.built():
        return skipped("the build failed")
    runs, differ = [], []
    spec = kit.facts["kit"]
    for model in [m for m in spec["models"] if m["small"]]:
        for precision in spec["precisions"]:
            report, why = amp_train(kit, model, precision, "cpu",
                                    spec["cpu_steps"], "cpu-training.log",
                                    timeout=120, env=OWN_LOOPS)
            if report is None:
                runs.append(amp_row(model, precision, "cpu", status="failed",
                                    reason=why))
                differ.append(f"{model['name']} {precision}")
                continue
            row = run_row(model, precision, "cpu", report)
            row.update(compare_losses(model, precision, report))
            if not row["same_losses_as_amp_run"]:
                differ.append(f"{model['name']} {precision}")
            runs.append(row)
    if differ:
        return failed("losses differ from amp-run's or the run failed: "
                      + ", ".join(differ), runs=runs)
    return ok(runs=runs)


def compare_losses(model, precision, report):
    name = f"{model['name']}-{precision}.json"
    expected = [s["loss"] for s in
                read_json(os.path.join(KIT_DIR, "expected", name))["per_step"]]
    got = [s["loss"] for s in report["per_step"]]
    diffs = [abs(a - b) for a, b in zip(got, expected)]
    return {"same_losses_as_amp_run": got == expected,
            "max_loss_difference": max(diffs) if diffs else None}


def needs_gpu(part):
    def guarded(kit):
        if kit.gpu_reason:
            return skipped(kit.gpu_reason)
        if not kit.built():
            return skipped("the build failed")
        return part(kit)
    return guarded


@needs_gpu
def gemm_part(kit):
    """amp's products beside raw cuBLAS(Lt) (amprt-gpu-bench) and
    torch.matmul (torch_matmul.py)."""
    amp_json = os.path.join(kit.out, "gemm-amp.json")
    rc, _ = kit.sh([kit.binary("amprt-gpu-bench"), "--sizes=1024,4096,8192",
                    "--repeats=10", f"--json={amp_json}"], "gemm.log",
                   timeout=150)
    rows, problems = [], []
    if rc == 0:
        rows += read_json(amp_json)
    else:
        problems.append("amprt-gpu-bench: " + kit.tail("gemm.log", 3))
    torch_json = os.path.join(kit.out, "gemm-torch.json")
    rc, _ = kit.sh([python(), script("torch_matmul.py"),
                    "--sizes=1024,4096,8192", "--repeats=10",
                    f"--json={torch_json}"], "gemm-torch.log", timeout=120)
    torch_rows = read_json(torch_json) if rc == 0 else None
    if rc != 0:
        problems.append("torch_matmul.py: " + kit.tail("gemm-torch.log", 3))
    result = {"rows": rows, "torch_rows": torch_rows}
    return failed("; ".join(problems), **result) if problems else ok(**result)


def gpu_runs(kit, models, steps_of, log, timeout, precisions=None,
             variant=""):
    """Each model in every precision (or `precisions`) on the GPU, as
    report rows; a run that does not fit in the time left is skipped, not
    failed. The "-padded" variant's rows are framework "amp-padded"."""
    runs, problems = [], []
    framework = "amp" + variant
    for model in models:
        for precision in precisions or kit.facts["kit"]["precisions"]:
            if kit.left() < 5:
                runs.append(amp_row(model, precision, "cuda", framework,
                                    status="skipped",
                                    reason="out of time (KIT_BUDGET_S)"))
                continue
            report, why = amp_train(kit, model, precision, "cuda",
                                    steps_of(model), log, timeout,
                                    variant=variant)
            if report is None:
                runs.append(amp_row(model, precision, "cuda", framework,
                                    status="failed", reason=why))
                problems.append(f"{model['name']} {precision}{variant}: "
                                f"{why}")
            else:
                runs.append(run_row(model, precision, "cuda", report,
                                    framework))
    result = {"runs": runs}
    return failed("; ".join(problems), **result) if problems else ok(**result)


@needs_gpu
def gpu_speed_part(kit):
    """The models that fill the GPU, in every precision: the speed goals."""
    models = [m for m in kit.facts["kit"]["models"] if not m["small"]]
    return gpu_runs(kit, models, lambda m: m["gpu_steps"], "gpu-speed.log",
                    timeout=120)


@needs_gpu
def gpu_padding_part(kit):
    """The large models' steps padded for Tensor Cores
    (--pad-tensor-cores), beside gpu_speed's unpadded rows."""
    models = [m for m in kit.facts["kit"]["models"] if not m["small"]]
    return gpu_runs(kit, models, lambda m: m["gpu_steps"], "gpu-padding.log",
                    timeout=120,
                    precisions=kit.facts["kit"].get("padded_precisions", []),
                    variant="-padded")


@needs_gpu
def gpu_accuracy_part(kit):
    """The examples for the epochs docs/results.md trains them on the CPU
    (steps=None: amp-train's --epochs), for test accuracy."""
    models = [m for m in kit.facts["kit"]["models"] if m["small"]]
    return gpu_runs(kit, models, lambda m: None, "gpu-accuracy.log",
                    timeout=150)


@needs_gpu
def torch_training_part(kit):
    """The same models in PyTorch: eager with autocast (+ GradScaler for
    f16), and torch.compile for the models that fill the GPU (compiling
    costs tens of seconds a model), for the side-by-side rows."""
    runs = []
    twins = [m for m in kit.facts["kit"]["models"] if m.get("torch")]
    for model in sorted(twins, key=lambda m: m["small"]):
        modes = ("eager",) if model["small"] else ("eager", "compile")
        for mode in modes:
            if kit.left() < 5:
                runs.append([{"model": model["name"], "device": "cuda",
                              "framework": mode, "status": "skipped",
                              "reason": "out of time (KIT_BUDGET_S)"}])
                continue
            runs.append(torch_run(kit, model, mode))
    return ok(runs=[r for group in runs for r in group])


def torch_run(kit, model, mode):
    """One PyTorch process (one import, one CUDA start-up) for the f32,
    f16 and bf16 runs of a model in a mode; returns their rows."""
    out = os.path.join(kit.out, "runs", f"torch-{model['name']}-{mode}.json")
    torch_model = model["torch"]
    args = [python(), script("torch_train.py"),
            f"--model={torch_model['model']}",
            f"--batch={model['batch']}", f"--steps={model['torch_steps']}",
            "--precision=f32,f16,bf16", f"--mode={mode}", "--device=cuda",
            "--data=" + (f"text:{text_file()}" if model.get("data") == "text"
                         else os.path.join(KIT_DIR, "data", "fashion-mnist")),
            f"--lr={model['lr']}", f"--json={out}"]
    if "width" in torch_model:  # else the script's default: the example's
        args.append(f"--width={torch_model['width']}")
    rc, _ = kit.sh(args, "torch-training.log", timeout=240)
    framework = "torch.compile" if mode == "compile" else "pytorch-eager"
    row = {"model": model["name"], "device": "cuda", "framework": framework}
    if rc != 0:
        why = (out_of_time(kit) if rc is None else
               f"exit {rc}: " + kit.tail("torch-training.log", 3))
        return [{**row, "status": "failed", "reason": why}]
    got = read_json(out)
    return [torch_row(row, r) for r in got]


def torch_row(row, got):
    if "skipped" in got:
        return {**row, "precision": got.get("precision"),
                "status": "skipped", "reason": got["skipped"]}
    return {**row, **{k: got.get(k) for k in
                      ("framework", "precision", "batch", "steps",
                       "final_loss", "step_ms", "samples_per_s",
                       "peak_bytes", "test_accuracy", "val_loss")}}


def python():
    return shutil.which("python3") or "python3"


def script(name):
    return os.path.join(KIT_DIR, "kit", name)
