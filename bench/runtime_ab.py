"""Before/after for a runtime change: the median CPU step time of each
example model and precision with two builds of libamprt, run alternately in
one script so load on the shared machine hits both alike.

Keep the old library first (cp build/lib/libamprt.so /tmp/before/), rebuild,
then:

  python3 bench/runtime_ab.py BUILD_DIR /tmp/before [ROUNDS]

amp-run finds libamprt through its RUNPATH, which LD_LIBRARY_PATH overrides,
so the same amp-run runs both. Prints one Markdown row per model and
precision: the two medians (over rounds of the per-run medians), their
ratio, and each precision's time over f32's with the new library.
"""
import os
import statistics
import sys

import transformer_model

from amp_run_report import run_report

build, before = sys.argv[1], sys.argv[2]
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 5
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
examples = os.path.join(root, "python-bindings-free-examples")
amp_run = os.path.join(build, "bin", "amp-run")
after = os.path.join(build, "lib")
# Issue 17's larger transformer block (width 256, batch 64), generated.
wide = transformer_model.write_wide_block()
MODELS = [("mlp_adam", "mlp_adam.mlir", 1e-3), ("cnn", "cnn.mlir", 0.01),
          ("transformer_block", "transformer_block.mlir", 0.05),
          ("transformer_256 (width 256, batch 64)", wide, 0.05)]
PRECISIONS = ["f32", "f16", "bf16"]
STEPS, WARMUP = 20, 5


def step_ms(lib, example, precision, lr):
    old = os.environ.get("LD_LIBRARY_PATH")
    os.environ["LD_LIBRARY_PATH"] = lib
    try:
        return run_report(amp_run, example, precision, STEPS, lr, WARMUP)[1]
    finally:
        if old is None:
            del os.environ["LD_LIBRARY_PATH"]
        else:
            os.environ["LD_LIBRARY_PATH"] = old


print("| model | precision | before ms | after ms | after / before |"
      " after / f32 after |")
print("|---|---|---:|---:|---:|---:|")
for model, example, lr in MODELS:
    path = os.path.join(examples, example)
    times = {(p, lib): [] for p in PRECISIONS for lib in (before, after)}
    for _ in range(rounds):
        for p in PRECISIONS:
            for lib in (before, after):
                times[(p, lib)].append(step_ms(lib, path, p, lr))
    med = {k: statistics.median(v) for k, v in times.items()}
    for p in PRECISIONS:
        b, a = med[(p, before)], med[(p, after)]
        print(f"| {model} | {p} | {b:.2f} | {a:.2f} | {a / b:.2f} |"
              f" {a / med[('f32', after)]:.2f} |")
