#!/usr/bin/env python3
"""Times one f32 training step of each example model on the CPU backend
(amp-run's per-step times) and, when PyTorch is installed
(`apt install python3-torch`), the same model, batch and optimizer as an
eager PyTorch CPU step, side by side in one script.

Usage: step_time.py BUILD_DIR [STEPS] [REPEATS]
Each run's step time is the median of its steps after 5 warm-up steps; amp
and PyTorch alternate REPEATS times per model. The table gives each side's
minimum over the runs (the run least disturbed by other load on the shared
machine), their ratio, and the median of the per-round ratios.
"""
import os
import statistics
import sys
import time

from amp_run_report import run_report


build = sys.argv[1]
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 60
repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 3
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WARMUP = 5

# name, example file, batch, lr (the example's hyperparameters).
MODELS = [("mlp_adam", "mlp_adam.mlir", 32, 1e-3),
          ("cnn", "cnn.mlir", 32, 0.01),
          ("transformer_block", "transformer_block.mlir", 32, 0.05)]


def amp_step_ms(example, lr):
    return run_report(os.path.join(build, "bin", "amp-run"),
                      os.path.join(root, "python-bindings-free-examples",
                                   example), "f32", steps, lr, WARMUP)[1]


def torch_models():
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    # Debian's build starts with one thread; give it every core, as amprt has.
    torch.set_num_threads(os.cpu_count())

    class Mlp(nn.Module):
        def __init__(self):
            super().__init__()
            self.l1, self.l2 = nn.Linear(784, 128), nn.Linear(128, 10)

        def forward(self, x):
            return self.l2(F.relu(self.l1(x)))

    class Cnn(nn.Module):
        def __init__(self):
            super().__init__()
            self.c1, self.bn = nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16)
            self.c2 = nn.Conv2d(16, 32, 3, padding=1)
            self.fc = nn.Linear(1568, 10)

        def forward(self, x):
            x = F.max_pool2d(F.relu(self.bn(self.c1(x))), 2)
            x = F.max_pool2d(F.relu(self.c2(x)), 2)
            return self.fc(x.flatten(1))

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Linear(28, 32, bias=False)
            self.n1, self.n2 = nn.LayerNorm(32), nn.LayerNorm(32)
            self.q, self.k, self.v, self.o = (nn.Linear(32, 32, bias=False)
                                              for _ in range(4))
            self.f1, self.f2 = nn.Linear(32, 64), nn.Linear(64, 32)
            self.cls = nn.Linear(32, 10, bias=False)

        def forward(self, x):
            x = self.embed(x)
            n = self.n1(x)
            s = self.q(n) @ self.k(n).transpose(1, 2) * 0.17677669
            h = x + self.o(torch.softmax(s, -1) @ self.v(n))
            out = h + self.f2(F.gelu(self.f1(self.n2(h))))
            return self.cls(out.mean(1))

    def opt(name, params, lr):
        if name == "mlp_adam":
            return torch.optim.Adam(params, lr=lr)
        if name == "cnn":
            return torch.optim.SGD(params, lr=lr, momentum=0.9)
        return torch.optim.SGD(params, lr=lr)

    shapes = {"mlp_adam": (Mlp, (32, 784)), "cnn": (Cnn, (32, 1, 28, 28)),
              "transformer_block": (Block, (32, 28, 28))}

    def step_ms(name, batch, lr):
        torch.manual_seed(1)
        cls, shape = shapes[name]
        model = cls()
        optimizer = opt(name, model.parameters(), lr)
        x, y = torch.randn(*shape), torch.randint(0, 10, (batch,))
        times = []
        for _ in range(steps):
            t0 = time.perf_counter()
            optimizer.zero_grad()
            F.cross_entropy(model(x), y).backward()
            optimizer.step()
            times.append((time.perf_counter() - t0) * 1e3)
        return (statistics.median(times[WARMUP:]),
                f"{torch.__version__}, {torch.get_num_threads()} threads")

    return step_ms


try:
    torch_step_ms = torch_models()
except ImportError:
    torch_step_ms = None

print("| model | batch | amp f32 step ms (min) | PyTorch eager step ms (min) "
      "| PyTorch / amp (minima) | PyTorch / amp (median per round) |")
print("|---|---:|---:|---:|---:|---:|")
version = None
for name, example, batch, lr in MODELS:
    amps, refs = [], []
    for _ in range(repeats):
        amps.append(amp_step_ms(example, lr))
        if torch_step_ms:
            ref, version = torch_step_ms(name, batch, lr)
            refs.append(ref)
    amp = min(amps)
    if refs:
        ref = min(refs)
        per_round = statistics.median(r / a for r, a in zip(refs, amps))
        print(f"| {name} | {batch} | {amp:.3f} | {ref:.3f} | {ref / amp:.2f} "
              f"| {per_round:.2f} |", flush=True)
    else:
        print(f"| {name} | {batch} | {amp:.3f} | n/a | n/a | n/a |")
print()
print(f"PyTorch {version}, eager mode" if version else
      "PyTorch is not installed (apt install python3-torch) so only amp "
      "is timed")
