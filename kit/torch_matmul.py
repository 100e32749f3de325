#!/usr/bin/env python3
"""PyTorch's square matmul throughput on the GPU, per precision: the
ceiling PyTorch's own kernels (cuBLAS / cuBLASLt) reach on this device, to
stand beside amp's runtime matmuls in the kit's tables.

Usage: torch_matmul.py --sizes=1024,4096,8192 --repeats=R --json=OUT.json

Precisions: f32 (TF32 off: IEEE f32), tf32 (f32 tensors, TF32 on), f16,
bf16, and fp8: float8_e4m3fn operands through torch._scaled_mm with
per-tensor scales of 1 and a bf16 result (amp's fp8 is bf16 with FP8
contraction operands). Each row is the median of R timed calls after 3
warm-up calls, each call timed by CUDA events around it; TFLOP/s counts
2*m*n*k. The file holds a JSON list of rows {"op": "matmul", "m", "n",
"k", "precision", "torch_tflops", "median_ms", and "error" with
torch_tflops null where the product could not run}; without CUDA it holds
{"skipped": reason} instead, and the script exits 0.
"""
import argparse
import os
import statistics
import sys

import torch

from files import write_json
from torch_train import set_tf32

WARMUP = 3
DTYPES = {"f32": torch.float32, "tf32": torch.float32,
          "f16": torch.float16, "bf16": torch.bfloat16}


def time_ms(call, repeats):
    """The median CUDA-event time of `call` over `repeats` calls, after
    WARMUP calls (cuBLAS's handle, workspace and heuristics)."""
    for _ in range(WARMUP):
        call()
    times = []
    for _ in range(repeats):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        call()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def dense_call(precision, size):
    """torch.matmul of two random size x size matrices in `precision`."""
    set_tf32(precision == "tf32")
    a = torch.randn(size, size, device="cuda", dtype=DTYPES[precision])
    b = torch.randn(size, size, device="cuda", dtype=DTYPES[precision])
    return lambda: torch.matmul(a, b)


def fp8_call(size):
    """torch._scaled_mm of two float8_e4m3fn matrices: the first row-major,
    the second column-major (cuBLASLt's FP8 GEMM takes only that "TN"
    layout), per-tensor f32 scales, a bf16 result. Raises with the reason
    when this PyTorch or device has no FP8 GEMM."""
    if not hasattr(torch, "_scaled_mm") or \
            not hasattr(torch, "float8_e4m3fn"):
        raise RuntimeError(f"PyTorch {torch.__version__} has no "
                           "torch._scaled_mm / float8_e4m3fn")
    fp8 = torch.float8_e4m3fn
    a = torch.randn(size, size, device="cuda").to(fp8)
    b = torch.randn(size, size, device="cuda").to(fp8).t()
    one = torch.ones((), device="cuda", dtype=torch.float32)

    def call():
        out = torch._scaled_mm(a, b, scale_a=one, scale_b=one,
                               out_dtype=torch.bfloat16)
        # PyTorch 2.1-2.3 return (out, amax); later ones the output alone.
        return out[0] if isinstance(out, tuple) else out
    call()  # fail here, with the reason, rather than in the timing
    return call


def row(precision, size, repeats):
    """One row: the TFLOP/s, or the error that stopped the measurement."""
    r = {"op": "matmul", "m": size, "n": size, "k": size,
         "precision": precision}
    if precision == "fp8":
        r.update(operands="float8_e4m3fn", out_dtype="bf16",
                 scaling="per-tensor")
    try:
        call = fp8_call(size) if precision == "fp8" \
            else dense_call(precision, size)
        ms = time_ms(call, repeats)
    except (RuntimeError, TypeError) as e:
        r.update(torch_tflops=None, error=str(e).strip().splitlines()[0])
        return r
    r.update(torch_tflops=2.0 * size ** 3 / (ms * 1e-3) / 1e12,
             median_ms=ms)
    return r


def measure(sizes, repeats):
    """One row per size and precision, each saying where it ran."""
    where = {"torch_version": torch.__version__,
             "cuda_version": torch.version.cuda,
             "device_name": torch.cuda.get_device_name(),
             "repeats": repeats}
    return [dict(row(p, n, repeats), **where) for n in sizes
            for p in ("f32", "tf32", "f16", "bf16", "fp8")]


def sizes_arg(text):
    try:
        sizes = [int(s) for s in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}': want N,N,...")
    if not sizes or min(sizes) < 1:
        raise argparse.ArgumentTypeError(f"'{text}': sizes must be >= 1")
    return sizes


def parse_args(argv):
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", type=sizes_arg, default=[1024, 4096, 8192],
                   help="square matrix sizes, comma-separated")
    p.add_argument("--repeats", type=int, default=20)
    p.add_argument("--json", required=True)
    args = p.parse_args(argv)
    if args.repeats < 1:
        p.error("--repeats must be >= 1")
    if not os.path.isdir(os.path.dirname(os.path.abspath(args.json))):
        p.error(f"--json={args.json}: its directory does not exist")
    return args


def main(argv):
    args = parse_args(argv)
    if not torch.cuda.is_available():
        why = "no CUDA device (torch.cuda.is_available() is False)"
        write_json(args.json, {"skipped": why,
                               "torch_version": torch.__version__})
        print(f"torch_matmul.py: skipped: {why}", file=sys.stderr)
        return
    write_json(args.json, measure(args.sizes, args.repeats))


if __name__ == "__main__":
    main(sys.argv[1:])
