#!/usr/bin/env bash
#===- scripts/setup.sh - Install amp's build and test dependencies -------===#
#
# Usage: scripts/setup.sh [EXTRA-PACKAGE]...
# Idempotent: checks each Debian package first and calls apt only for what is
# missing, so a second run costs a few dpkg queries.
#
#===----------------------------------------------------------------------===#
set -euo pipefail

packages=(
  # Toolchain and LLVM/MLIR 22 (mlir-22-tools is required by find_package(MLIR)).
  cmake ninja-build g++ llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  # Unit tests.
  libgtest-dev
  # Runtime CPU backend: tuned BLAS and oneDNN; zlib reads the gzip IDX files.
  libopenblas-dev libdnnl-dev zlib1g-dev
  # Real training data for amp-run: images, and English text (the Jargon
  # File) for the language model.
  dataset-fashion-mnist jargon-text
  # Data-parallel training: amp-run under mpirun (runtime/comm).
  openmpi-bin libopenmpi-dev
)

# Callers add what only they need (scripts/sanitize.sh: clang and its
# sanitizer, libFuzzer and OpenMP runtimes).
packages+=("$@")

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "setup: installing ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
# Refresh the package lists only when an install fails on stale lists.
if ! $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"; then
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
