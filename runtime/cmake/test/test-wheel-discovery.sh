#!/usr/bin/env bash
# Lays out cuDNN and NCCL as PyTorch's NVIDIA wheels do (site-packages/
# nvidia/{cudnn,nccl}/{include,lib}, versioned libraries only) in the
# site-packages of a Python of its own (a venv, so wheels the machine's
# Python already has -- a GPU machine's PyTorch brings real ones -- are
# not in the way), and checks that the runtime's CUDA library search finds
# them there (the wheels are searched before the system's folders).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/amprt-wheels.XXXXXX")
trap 'rm -rf "$work"' EXIT
python3 -m venv --without-pip "$work/venv"
python=$work/venv/bin/python3
configure() {
  rm -rf "$work/build"
  cmake -S "$here" -B "$work/build" -DPython3_EXECUTABLE="$python" 2>&1 |
    grep "found"
}
site=$("$python" -c 'import site; print(site.getsitepackages()[0])')
for lib in cudnn:9 nccl:2; do
  name=${lib%:*}
  mkdir -p "$site/nvidia/$name/include" "$site/nvidia/$name/lib"
  touch "$site/nvidia/$name/include/$name.h" \
        "$site/nvidia/$name/lib/lib$name.so.${lib#*:}"
done
after=$(configure)
echo "$after"
for expected in "found cuDNN: $site/nvidia/cudnn/include $site/nvidia/cudnn/lib/libcudnn.so.9" \
                "found NCCL: $site/nvidia/nccl/include $site/nvidia/nccl/lib/libnccl.so.2"; do
  if ! grep -qF -- "$expected" <<<"$after"; then
    echo "expected: $expected"
    exit 1
  fi
done
