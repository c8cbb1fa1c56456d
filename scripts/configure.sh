#!/usr/bin/env bash
# Installs what is missing and configures the build folder that the README's
# commands share (scripts/examples.sh and scripts/test.sh call this, with the
# same options, so the second reuses what the first built).
#   usage: scripts/configure.sh [build-dir]     (default: build)
# UFUNC_BACKEND=auto (the default) picks CUDA when nvcc and a GPU are present and
# the host backend otherwise; configure prints which and why. UFUNC_BUILD_TYPE
# (default Release; may be empty) and the compiler's usual CXXFLAGS apply at the
# folder's first configure: CI builds it once with the sanitizers this way.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
export PATH=/usr/local/cuda/bin:$PATH
BUILD=${1:-build}
mkdir -p "$BUILD"
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE="${UFUNC_BUILD_TYPE-Release}" -DUFUNC_BACKEND="${UFUNC_BACKEND:-auto}" \
  -DUFUNC_BUILD_TESTS=ON -DUFUNC_BUILD_EXAMPLES=ON -DUFUNC_BUILD_BENCH=OFF >"$BUILD/configure.log" 2>&1 ||
  { cat "$BUILD/configure.log"; exit 1; }
grep "^-- ufunc:" "$BUILD/configure.log" || true
