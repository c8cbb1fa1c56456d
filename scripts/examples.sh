#!/usr/bin/env bash
# Builds and runs every example: on the GPU when there is one (UFUNC_BACKEND=auto
# picks CUDA when nvcc and a GPU are present), on the host backend otherwise.
# Usage: scripts/examples.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
export PATH=/usr/local/cuda/bin:$PATH
BUILD=${1:-build-examples}
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DUFUNC_BACKEND="${UFUNC_BACKEND:-auto}" \
  -DUFUNC_BUILD_TESTS=OFF -DUFUNC_BUILD_BENCH=OFF
cmake --build "$BUILD" -j "$(nproc)"
for exe in "$BUILD"/examples/example_*; do
  echo "=== $(basename "$exe")"
  "$exe"
done
