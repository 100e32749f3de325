"""What the machine has: CPU, GPU, driver, toolkit, compilers, Python's
PyTorch and the NVIDIA wheels' folders. Nothing here needs a GPU; what is
missing is recorded as null, with the reason where one is known."""
import glob
import os
import platform
import re
import shutil
import site
import subprocess
import xml.etree.ElementTree as ElementTree


def output(cmd, timeout=60):
    """The command's stdout, or None when it is missing or fails."""
    if not shutil.which(cmd[0]):
        return None
    try:
        done = subprocess.run(cmd, capture_output=True, text=True,
                              timeout=timeout)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def cpu():
    model, flags = None, set()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() == "model name" and model is None:
                    model = value.strip()
                elif key.strip() == "flags" and not flags:
                    flags = set(value.split())
    except OSError:
        pass
    features = [f for f in ("avx2", "avx512f", "avx512_bf16", "avx512_fp16",
                            "amx_tile") if f in flags]
    return {"model": model or platform.processor(), "cores": os.cpu_count(),
            "features": features}


def gpu():
    """The first GPU nvidia-smi lists, with its sm architecture."""
    if os.environ.get("KIT_NO_GPU") == "1":
        return {"reason": "KIT_NO_GPU=1"}
    text = output(["nvidia-smi", "--query-gpu=name,driver_version,"
                   "memory.total,compute_cap", "--format=csv,noheader"])
    if text is None:
        why = ("no nvidia-smi on PATH" if not shutil.which("nvidia-smi")
               else "nvidia-smi found no GPU")
        return {"reason": why}
    name, driver, memory, cap = [v.strip() for v in
                                 text.splitlines()[0].split(",")]
    return {"name": name, "driver": driver, "memory": memory,
            "compute_capability": cap, "architecture": cap.replace(".", ""),
            "count": len(text.splitlines())}


def toolkit():
    nvcc = shutil.which("nvcc") or (
        "/usr/local/cuda/bin/nvcc"
        if os.path.exists("/usr/local/cuda/bin/nvcc") else None)
    version = output([nvcc, "--version"]) if nvcc else None
    release = re.search(r"release ([\d.]+)", version or "")
    return {"nvcc": nvcc, "release": release.group(1) if release else None}


def wheel_roots():
    """site-packages/nvidia/* folders: where cuDNN and NCCL may be."""
    dirs = site.getsitepackages() + [site.getusersitepackages()]
    return sorted(d for s in dirs for d in glob.glob(os.path.join(s,
                                                                  "nvidia",
                                                                  "*"))
                  if os.path.isdir(d))


def torch():
    code = ("import torch;print(torch.__version__);"
            "print(torch.version.cuda);print(torch.cuda.is_available());"
            "print(torch.backends.cudnn.version())")
    text = output(["python3", "-c", code], timeout=120)
    if text is None:
        return {"reason": "PyTorch is not importable by python3"}
    version, cuda, available, cudnn = (text.splitlines() + [None] * 4)[:4]
    return {"version": version, "cuda": cuda, "cuda_available":
            available == "True", "cudnn": cudnn}


def first_line(cmd):
    text = output(cmd)
    return text.splitlines()[0] if text else None


def gather(kit):
    return {"host": platform.node(), "os": platform.platform(),
            "cpu": cpu(), "gpu": gpu(), "cuda_toolkit": toolkit(),
            "cmake": first_line(["cmake", "--version"]),
            "ninja": first_line(["ninja", "--version"]),
            "cxx": first_line([os.environ.get("CXX", "c++"), "--version"]),
            "python": platform.python_version(), "torch": torch(),
            "nvidia_wheel_folders": wheel_roots()}


def gpu_unavailable(facts):
    """Why the GPU half cannot run here, or None when it can."""
    if "reason" in facts["gpu"]:
        return "no GPU: " + facts["gpu"]["reason"]
    if not facts["cuda_toolkit"]["nvcc"]:
        return "a GPU but no CUDA toolkit (nvcc) to build for it"
    return None


def junit_counts(path):
    """Passed, failed and skipped tests (the failures' names, and how many
    of the skipped are cuda.* device tests) from ctest's JUnit file."""
    try:
        root = ElementTree.parse(path).getroot()
    except (OSError, ElementTree.ParseError):
        return {"reason": "no readable JUnit file from ctest"}
    counts = {"passed": 0, "failed": 0, "skipped": 0, "cuda_skipped": 0,
              "failures": []}
    for case in root.iter("testcase"):
        status = case.get("status")
        if case.find("failure") is not None or status == "fail":
            counts["failed"] += 1
            counts["failures"].append(case.get("name"))
        elif case.find("skipped") is not None or status in ("notrun",
                                                            "disabled"):
            counts["skipped"] += 1
            counts["cuda_skipped"] += case.get("name", "").startswith("cuda.")
        else:
            counts["passed"] += 1
    return counts
