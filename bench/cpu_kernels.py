#!/usr/bin/env python3
"""What the CPU backend runs on this machine: amprt_cpu_kernels() of the
built runtime, e.g. "AVX2 AVX-512 AVX-512-BF16 AVX-512-FP16 AMX; oneDNN
avx512_core_amx", as `amprt-bench --cpu-kernels` prints it. Every CPU
figure is printed beside it, since a bf16 step time means little without
the CPU's bf16 arithmetic named.

Usage: cpu_kernels.py BUILD_DIR
"""
import os
import subprocess
import sys


def cpu_kernels(build):
    bench = os.path.join(build, "bin", "amprt-bench")
    return subprocess.run([bench, "--cpu-kernels"], check=True,
                          capture_output=True, text=True).stdout.strip()


if __name__ == "__main__":
    print(cpu_kernels(sys.argv[1]))
