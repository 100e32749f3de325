"""The goals the GPU check is judged by, measured from the report's rows.

Each goal: {"goal": text, "measured": text, "met": true|false|null};
null when the rows it needs are not there (a part skipped or failed).
"""
MIXED = ("f16", "bf16")


def goal(text, measured=None, met=None):
    return {"goal": text, "measured": measured, "met": met}


def tests_goal(facts, results):
    """Met when nothing failed and, on a GPU, no cuda.* test skipped."""
    tests = results.get("tests", {})
    text = "every CUDA test passes"
    if "passed" not in tests:
        return goal(text, tests.get("reason"))
    measured = (f"{tests['passed']} passed, {tests['failed']} failed, "
                f"{tests['skipped']} skipped, of which cuda.*: "
                f"{tests['cuda_skipped']}")
    gpu = "name" in facts.get("inventory", {}).get("gpu", {})
    met = tests["failed"] == 0 and tests["cuda_skipped"] == 0
    return goal(text, measured, met if gpu else None)


def gemm_goals(gemm):
    text = ("f16/bf16 GEMM at 8192^3 within 5% of raw cuBLAS(Lt) and at "
            "least 70% of dense Tensor Core peak")
    if isinstance(gemm, dict):
        return [goal(text, gemm.get("skipped"))]
    rows = [r for r in gemm if r.get("op") == "matmul" and r.get("m") == 8192
            and r.get("precision") in MIXED and "amp_tflops" in r]
    if not rows:
        return [goal(text, "no 8192^3 rows")]
    measured = "; ".join(f"{r['precision']}: {r.get('amp_over_raw')} of raw, "
                         f"{r.get('fraction_of_peak')} of peak" for r in rows)
    met = all(isinstance(r.get("amp_over_raw"), (int, float))
              and isinstance(r.get("fraction_of_peak"), (int, float))
              and r["amp_over_raw"] >= 0.95 and r["fraction_of_peak"] >= 0.70
              for r in rows)
    return [goal(text, measured, met)]


def step_ms(runs, model, framework, precision):
    for r in runs:
        if (r.get("model"), r.get("framework"), r.get("precision"),
                r.get("device")) == (model, framework, precision, "cuda") \
                and isinstance(r.get("step_ms"), (int, float)):
            return r["step_ms"]
    return None


def ratio_goal(text, pairs, threshold):
    """pairs: (label, numerator ms, denominator ms); met when every ratio
    is at least threshold."""
    have = [(label, a / b) for label, a, b in pairs if a and b]
    if not have:
        return goal(text, "no runs to compare")
    measured = "; ".join(f"{label}: {r:.2f}x" for label, r in have)
    return goal(text, measured, all(r >= threshold for _, r in have))


def speed_goals(facts, runs):
    large = [m["name"] for m in facts["kit"]["models"] if not m["small"]]
    f32_pairs, eager_pairs, compile_pairs = [], [], []
    for model in large:
        f32 = step_ms(runs, model, "amp", "f32")
        for p in MIXED:
            amp = step_ms(runs, model, "amp", p)
            label = f"{model} {p}"
            f32_pairs.append((label, f32, amp))
            eager_pairs.append((label, step_ms(runs, model, "pytorch-eager-amp",
                                               p), amp))
            compile_pairs.append((label, step_ms(runs, model, "torch.compile",
                                                 p), amp))
    return [ratio_goal("f16 and bf16 steps at least 2.5x faster than f32 on "
                       "the large models", f32_pairs, 2.5),
            ratio_goal("amp's mixed step at least 1.5x faster than PyTorch "
                       "eager AMP", eager_pairs, 1.5),
            ratio_goal("amp's mixed step not slower than torch.compile",
                       compile_pairs, 1.0)]


def padding_goal(facts, runs):
    """The large models' padded steps (--pad-tensor-cores) against their
    unpadded ones: padding is for Tensor Cores, so it must not cost more
    than the 2% by which medians of the same step differ from run to run
    (on an H200, 0.1-0.3% between the unpadded runs of the same step)."""
    large = [m["name"] for m in facts["kit"]["models"] if not m["small"]]
    pairs = [(f"{model} {p}", step_ms(runs, model, "amp", p),
              step_ms(runs, model, "amp-padded", p))
             for model in large
             for p in facts["kit"].get("padded_precisions", [])]
    return ratio_goal("Tensor Core padding does not slow the large models' "
                      "steps beyond 2% noise (unpadded / padded step time)",
                      pairs, 0.98)


def accuracy_goal(facts, runs):
    """Test accuracy on the GPU within one point of docs/results.md's CPU
    runs (which vary by half a point with the order of sums)."""
    text = "the same test accuracy as the CPU runs in docs/results.md"
    expected = facts["kit"].get("cpu_accuracy", {})
    diffs = []
    for r in runs:
        key = f"{r.get('model')} {r.get('precision')}"
        if r.get("framework") == "amp" and r.get("device") == "cuda" \
                and key in expected and r.get("test_accuracy") is not None:
            diffs.append((key, r["test_accuracy"] - expected[key]))
    if not diffs:
        return goal(text, "no GPU runs of the examples")
    measured = "; ".join(f"{k}: {d * 100:+.2f} points" for k, d in diffs)
    return goal(text, measured, all(abs(d) <= 0.01 for _, d in diffs))


def evaluate(facts, results, runs, gemm):
    if "kit" not in facts:
        return []
    return ([tests_goal(facts, results)] + gemm_goals(gemm)
            + speed_goals(facts, runs) + [padding_goal(facts, runs),
                                          accuracy_goal(facts, runs)])
