#!/usr/bin/env bash
# Installs amp into a scratch prefix, builds test/Install/downstream against
# it with find_package(AMP CONFIG), runs it and checks its output.
set -euo pipefail
build=$1
# The compiler and sanitizer flags of amp's build: a sanitized amp needs a
# downstream built with the same sanitizers.
cxx=${2:-c++}
sanitizer_flags=${3:-}
source_dir=$(cd "$(dirname "$0")" && pwd)
work=$build/install-test
rm -rf "$work"
cmake --install "$build" --prefix "$work/prefix" > /dev/null
cmake -G Ninja -S "$source_dir/downstream" -B "$work/build" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_CXX_FLAGS="$sanitizer_flags" \
  -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir > "$work/configure.log"
ninja -C "$work/build" > "$work/build.log"
"$work/build/downstream" > "$work/out.txt"
grep -q "tg.matmul .*tensor<8x8xf16>" "$work/out.txt"
grep -q "amp.update_scale" "$work/out.txt"
grep -q "runtime: ok" "$work/out.txt"
grep -q "amp-run config: --precision must be" "$work/out.txt"
echo "downstream project built against the installed amp and ran"
