#!/usr/bin/env bash
#===- kit/hide-libraries.sh - Run a command without LLVM, MLIR, BLAS, oneDNN -===#
#
# hide-libraries.sh COMMAND... runs COMMAND in this mount namespace (start
# it under `unshare -m --propagation private`) after hiding LLVM and MLIR,
# OpenBLAS and oneDNN: an empty tmpfs over their folders and /dev/null over
# their files in the shared library and include folders. What the GPU kit
# builds there can neither find nor load them, as on a GPU machine.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
lib=/usr/lib/x86_64-linux-gnu
shopt -s nullglob
for dir in /usr/lib/llvm-* /usr/include/llvm-* /usr/include/llvm-c-* \
    /usr/include/mlir /usr/include/oneapi "$lib"/openblas* \
    /usr/include/x86_64-linux-gnu/openblas*; do
  [ -d "$dir" ] && mount -t tmpfs -o size=1m,ro none "$dir"
done
for file in "$lib"/libLLVM* "$lib"/libMLIR* "$lib"/libmlir* "$lib"/libclang* \
    "$lib"/libdnnl* "$lib"/libopenblas* "$lib"/libblas* /usr/include/dnnl* \
    /usr/include/cblas*; do
  [ -e "$file" ] && mount --bind /dev/null "$file"
done
# Proof in the log that they are gone.
for probe in libLLVM.so.22.1 libMLIR.so.22.1 libdnnl.so.2 libopenblas.so.0; do
  if python3 -c "import ctypes,sys; ctypes.CDLL(sys.argv[1])" "$probe" \
      2>/dev/null; then
    echo "hide-libraries: $probe still loads" >&2
    exit 1
  fi
done
echo "hide-libraries: LLVM, MLIR, OpenBLAS and oneDNN hidden"
exec "$@"
