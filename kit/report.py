"""OUT/report.json and OUT/report.md from the parts' results.

report.json: "machine" (inventory), "libraries" (what the build found),
"parts" (each part's status and reason), "tests", "gemm" (rows, or
{"skipped": reason}), "training_runs" (every run: amp on the CPU and the
GPU, PyTorch on the GPU; model, framework, precision, device, final_loss,
step_ms, samples_per_s, peak_bytes, test_accuracy (val_loss for a
language model), and status/reason
when it did not finish), "profiles" (gpu_profile's op tables: each
model and precision with its longest ops; {"skipped": reason} when the part
did not run) and "goals" (each goal's measured value and whether it was
met; null when its part did not run).
"""
import os

import goals
from files import write_json, write_text


def training_runs(results):
    runs = []
    for name in ("cpu_training", "gpu_speed", "gpu_padding", "gpu_accuracy",
                 "torch_training"):
        part = results.get(name, {})
        if "runs" in part:
            runs += part["runs"]
        else:
            runs.append({"part": name, "status": part.get("status"),
                         "skipped": part.get("reason")})
    return runs


def gemm_rows(results):
    part = results.get("gemm", {})
    if part.get("status") == "skipped":
        return {"skipped": part.get("reason")}
    rows = [{"framework": "amp", **r} for r in part.get("rows", [])]
    if isinstance(part.get("torch_rows"), list):
        rows += [{**r, "framework": "torch.matmul"}
                 for r in part["torch_rows"]]
    elif isinstance(part.get("torch_rows"), dict):
        rows.append({"framework": "torch.matmul", **part["torch_rows"]})
    return rows


def profiles(results):
    part = results.get("gpu_profile", {})
    if "profiles" not in part:
        return {"skipped": part.get("reason")}
    return {"runs": part["profiles"], "nsys": part.get("nsys")}


def build(facts, results):
    parts = {n: {k: v for k, v in r.items()
                 if k in ("status", "reason", "seconds")}
             for n, r in results.items()}
    runs = training_runs(results)
    gemm = gemm_rows(results)
    return {"kit": facts.get("kit", {}).get("made"),
            "machine": facts.get("inventory"),
            "libraries": facts.get("libraries"), "parts": parts,
            "tests": {k: v for k, v in results.get("tests", {}).items()
                      if k != "status"},
            "gemm": gemm, "training_runs": runs,
            "profiles": profiles(results),
            "goals": goals.evaluate(facts, results, runs, gemm)}


def cell(value, fmt="{:.3g}"):
    if value is None:
        return "-"
    if isinstance(value, float):
        return fmt.format(value)
    return str(value)


def table(rows, columns):
    lines = ["| " + " | ".join(title for title, _ in columns) + " |",
             "|" + "---|" * len(columns)]
    for row in rows:
        lines.append("| " + " | ".join(cell(row.get(key)) for _, key in
                                         columns) + " |")
    return lines


def machine_lines(machine):
    if not machine:
        return ["(no inventory)"]
    gpu = machine["gpu"]
    gpu_text = (f"{gpu['name']} (sm_{gpu['architecture']}), driver "
                f"{gpu['driver']}, {gpu['memory']}" if "name" in gpu
                else "none: " + gpu["reason"])
    torch = machine["torch"]
    return [f"- CPU: {machine['cpu']['model']}, {machine['cpu']['cores']} "
            f"cores ({', '.join(machine['cpu']['features']) or 'no AVX2'})",
            f"- GPU: {gpu_text}",
            f"- CUDA toolkit: {machine['cuda_toolkit']['release'] or 'none'}"
            f", CMake: {machine['cmake']}, C++: {machine['cxx']}",
            f"- PyTorch: {torch.get('version', torch.get('reason'))} "
            f"(CUDA {torch.get('cuda')}, cuDNN {torch.get('cudnn')})",
            f"- NVIDIA wheel folders: "
            f"{', '.join(machine['nvidia_wheel_folders']) or 'none'}"]


RUN_COLUMNS = [("model", "model"), ("framework", "framework"),
               ("precision", "precision"), ("device", "device"),
               ("batch", "batch"), ("steps", "steps"),
               ("step ms", "step_ms"), ("samples/s", "samples_per_s"),
               ("peak bytes", "peak_bytes"), ("final loss", "final_loss"),
               ("test accuracy", "test_accuracy"),
               ("validation loss", "val_loss"),
               ("same losses as amp-run", "same_losses_as_amp_run"),
               ("status", "status"), ("reason", "reason")]
GEMM_COLUMNS = [("op", "op"), ("framework", "framework"), ("m", "m"),
                ("n", "n"), ("k", "k"), ("precision", "precision"),
                ("amp TFLOP/s", "amp_tflops"),
                ("cuBLAS TFLOP/s", "cublas_tflops"),
                ("cuBLASLt TFLOP/s", "cublaslt_tflops"),
                ("torch TFLOP/s", "torch_tflops"),
                ("amp / best raw", "amp_over_raw"),
                ("fraction of peak", "fraction_of_peak"),
                ("amp note", "amp_note"), ("error", "error")]


def markdown(report):
    lines = ["# amp GPU kit report", ""]
    made = report.get("kit") or {}
    lines += [f"Kit made {made.get('date')} from commit "
              f"{made.get('commit')} on {made.get('cpu')}.", "",
              "## Machine", ""] + machine_lines(report["machine"])
    lines += ["", "## Parts", "",
              *table([{"part": n, **p} for n, p in report["parts"].items()],
                     [("part", "part"), ("status", "status"),
                      ("seconds", "seconds"), ("reason", "reason")])]
    lines += ["", "## Goals", "",
              *table(report["goals"], [("goal", "goal"), ("measured",
                                                          "measured"),
                                       ("met", "met")])]
    gemm = report["gemm"]
    lines += ["", "## GEMM and convolution", ""]
    lines += ([f"Skipped: {gemm['skipped']}"] if isinstance(gemm, dict)
              else table(gemm, GEMM_COLUMNS))
    lines += ["", "## Training runs", "",
              *table(report["training_runs"], RUN_COLUMNS)]
    lines += ["", "## Where the step's time goes (AMPRT_PROFILE)", ""]
    lines += profile_lines(report["profiles"]) + [""]
    return "\n".join(lines)


PROFILE_COLUMNS = [("op", "op"), ("calls", "calls"), ("total ms", "total_ms"),
                   ("mean us", "mean_us"), ("share", "share")]


def profile_lines(found):
    if "skipped" in found:
        return [f"Skipped: {found['skipped']}"]
    lines = []
    for run in found["runs"]:
        title = f"### {run['model']} {run['precision']}"
        if run["status"] != "ok":
            lines += [title, "", f"{run['status']}: {run.get('reason')}", ""]
            continue
        lines += [title, "", f"{run['steps']} steady steps, {run['ops']} op "
                  f"kinds, {run['total_ms']} ms in ops "
                  f"({run.get('ms_per_step')} ms a step, synchronised)", "",
                  *table(run["top"], PROFILE_COLUMNS), ""]
    nsys = found.get("nsys")
    lines.append("Nsight Systems: " + (
        f"exit {nsys['exit']} in {nsys['seconds']} s, kernels in logs/nsys.log"
        if nsys else "not on this machine"))
    return lines


def write(out, facts, results):
    report = build(facts, results)
    # NaN stays as JSON's NaN: a diverged run's loss is what it is.
    write_json(os.path.join(out, "report.json"), report, indent=2,
               allow_nan=True)
    write_text(os.path.join(out, "report.md"), markdown(report))
