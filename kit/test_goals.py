#!/usr/bin/env python3
"""The GPU kit's goals and report from made-up part results: each goal is
met, missed or unknown as its rows say, padded rows stay apart from the
unpadded ones, and report.md renders every part. Run by ctest
(gpu-kit-goals); exit 1 on the first wrong verdict."""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import goals  # noqa: E402
import report  # noqa: E402
import run  # noqa: E402

FACTS = {"kit": {"models": [{"name": "big", "small": False},
                            {"name": "mlp", "small": True}],
                 "padded_precisions": ["f16", "bf16"],
                 "cpu_accuracy": {"mlp f16": 0.88}},
         "inventory": {
             "gpu": {"name": "test GPU", "architecture": "90",
                     "driver": "1.0", "memory": "1 MiB"},
             "cpu": {"model": "test CPU", "cores": 2, "features": []},
             "cuda_toolkit": {"release": "13.0"}, "cmake": "cmake",
             "cxx": "c++", "torch": {"version": "2"},
             "nvidia_wheel_folders": []}}


def row(framework, precision, ms, model="big", **more):
    return {"model": model, "framework": framework, "precision": precision,
            "device": "cuda", "step_ms": ms, **more}


def results(padded_ms, eager_ms):
    speed = [row("amp", "f32", 30.0), row("amp", "f16", 10.0),
             row("amp", "bf16", 10.0)]
    padding = [row("amp-padded", p, padded_ms) for p in ("f16", "bf16")]
    torch = [row("pytorch-eager-amp", p, eager_ms) for p in ("f16", "bf16")]
    torch += [row("torch.compile", p, 9.0) for p in ("f16", "bf16")]
    accuracy = [row("amp", "f16", 1.0, model="mlp", test_accuracy=0.885)]
    gemm = [{"op": "matmul", "m": 8192, "precision": p, "amp_tflops": 700,
             "amp_over_raw": 0.99, "fraction_of_peak": 0.72}
            for p in ("f16", "bf16")]
    return {"tests": {"status": "ok", "passed": 20, "failed": 0,
                      "skipped": 0, "cuda_skipped": 0},
            "gemm": {"status": "ok", "rows": gemm, "torch_rows": []},
            "gpu_speed": {"status": "ok", "runs": speed},
            "gpu_padding": {"status": "ok", "runs": padding},
            "torch_training": {"status": "ok", "runs": torch},
            "gpu_accuracy": {"status": "ok", "runs": accuracy},
            "gpu_profile": {"status": "ok", "nsys": None, "profiles": [
                {"model": "big", "precision": "bf16", "status": "ok",
                 "steps": 8, "ops": 1, "total_ms": 4.0,
                 "top": [{"op": "amprt_layer_norm_grad", "calls": 16,
                          "total_ms": 4.0, "mean_us": 250.0, "share": 1.0}]},
                {"model": "big", "precision": "f32", "status": "failed",
                 "reason": "amp-train exit 1"}]},
            "cpu_training": {"status": "skipped", "reason": "not asked"}}


def verdicts(parts):
    built = report.build(FACTS, parts)
    return {g["goal"].split(" ")[0] + " " + g["goal"].split(" ")[-1]: g["met"]
            for g in built["goals"]}, built


def check(what, got, want):
    if got != want:
        sys.exit(f"test_goals: {what}: got {got}, want {want}")


def main():
    met, built = verdicts(results(padded_ms=8.0, eager_ms=20.0))
    check("verdicts when all hold", met, {
        "every passes": True, "f16/bf16 peak": True, "f16 models": True,
        "amp's AMP": True, "amp's torch.compile": False,
        "Tensor time)": True, "the docs/results.md": True})
    padding = next(g for g in built["goals"] if g["goal"].startswith("Tensor"))
    check("padding measured", padding["measured"],
          "big f16: 1.25x; big bf16: 1.25x")
    met, _ = verdicts(results(padded_ms=10.1, eager_ms=20.0))
    check("a padded step 1% slower: noise", met["Tensor time)"], True)
    met, _ = verdicts(results(padded_ms=10.3, eager_ms=20.0))
    check("a padded step 3% slower", met["Tensor time)"], False)
    met, _ = verdicts(results(padded_ms=12.0, eager_ms=12.0))
    check("a slower padded step", met["Tensor time)"], False)
    check("amp not 1.5x faster than eager", met["amp's AMP"], False)
    parts = results(8.0, 20.0)
    parts["gpu_padding"] = {"status": "skipped", "reason": "not in KIT_PARTS"}
    met, _ = verdicts(parts)
    check("no padded rows", met["Tensor time)"], None)
    with tempfile.TemporaryDirectory() as out:
        report.write(out, FACTS, results(8.0, 20.0))
        text = open(os.path.join(out, "report.md")).read()
    for needed in ("| gpu_padding |", "amp-padded", "Tensor Core padding",
                   "### big bf16", "| amprt_layer_norm_grad | 16 | 4 | 250 |",
                   "### big f32\n\nfailed: amp-train exit 1"):
        check(f"report.md holds {needed!r}", needed in text, True)
    models = [{"name": "a"}, {"name": "b"}, {"name": "c"}]
    check("KIT_MODELS unset", run.chosen_models(models, None), models)
    check("KIT_MODELS c,a", [m["name"] for m in
                             run.chosen_models(models, "c, a")], ["a", "c"])
    for bad in ("a,zz", ","):
        try:
            run.chosen_models(models, bad)
            check(f"KIT_MODELS {bad!r} refused", False, True)
        except ValueError:
            pass
    print("test_goals: ok")


main()
