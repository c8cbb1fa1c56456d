#!/usr/bin/env bash
# Builds and runs the whole test suite (unit tests, examples, the installed-package
# consumer) with the backend CMake picks (UFUNC_BACKEND=auto: CUDA when nvcc and a
# GPU are present, the host backend otherwise). Usage: scripts/test.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
export PATH=/usr/local/cuda/bin:$PATH
BUILD=${1:-build}
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DUFUNC_BACKEND="${UFUNC_BACKEND:-auto}" -DUFUNC_BUILD_BENCH=OFF
cmake --build "$BUILD" -j "$(nproc)"
ctest --test-dir "$BUILD" --output-on-failure -j "$(nproc)"
