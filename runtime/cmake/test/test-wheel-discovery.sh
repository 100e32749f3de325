#!/usr/bin/env bash
# Lays out cuDNN and NCCL as PyTorch's NVIDIA wheels do (site-packages/
# nvidia/{cudnn,nccl}/{include,lib}, versioned libraries only) in a user
# site folder, and checks that the runtime's CUDA library search finds
# them there (the wheels are searched before the system's folders).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/amprt-wheels.XXXXXX")
trap 'rm -rf "$work"' EXIT
export PYTHONUSERBASE=$work/user
configure() {
  rm -rf "$work/build"
  cmake -S "$here" -B "$work/build" 2>&1 | grep "found"
}
site=$(python3 -c 'import site; print(site.getusersitepackages())')
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
