#!/usr/bin/env bash
# Builds the CUDA backend as the GPU kit builds it -- runtime/ alone, no
# LLVM or MLIR, for sm_90 -- with cuDNN made unfindable, as on a GPU
# machine whose PyTorch has no cuDNN wheel: the backend must compile and
# link with NoCudnn.cu, depend on no cuDNN library, and say so in
# amprt-build.json.
set -euo pipefail
runtime=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/amprt-no-cudnn.XXXXXX")
trap 'rm -rf "$work"' EXIT
cmake -S "$runtime" -B "$work" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DAMPRT_CUDNN_INCLUDE=AMPRT_CUDNN_INCLUDE-NOTFOUND \
  -DAMPRT_CUDNN=AMPRT_CUDNN-NOTFOUND >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; exit 1; }
grep -F "amprt: no cuDNN" "$work/configure.log"
cmake --build "$work" --target amprt_cuda >"$work/build.log" 2>&1 ||
  { tail -40 "$work/build.log"; exit 1; }
library=$work/lib/libamprt_cuda.so
if readelf -d "$library" | grep -i "NEEDED.*cudnn"; then
  echo "libamprt_cuda.so depends on cuDNN though none was found" >&2
  exit 1
fi
readelf -d "$library" | grep -F "NEEDED" | grep -q cublasLt ||
  { echo "libamprt_cuda.so does not link cuBLASLt (its FP8 GEMM)" >&2; exit 1; }
python3 - "$work/amprt-build.json" <<'PY'
import json, sys
uses = json.load(open(sys.argv[1]))
if uses.get("cudnn") is not None:
    sys.exit(f"amprt-build.json names cuDNN: {uses['cudnn']}")
if not uses.get("cublaslt"):
    sys.exit("amprt-build.json names no cuBLASLt")
print("no cuDNN: built and linked with NoCudnn.cu; amprt-build.json agrees")
PY
