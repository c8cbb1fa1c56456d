#!/usr/bin/env bash
# Builds and runs the whole test suite (unit tests, examples, the installed-package
# consumer) with the backend CMake picks (UFUNC_BACKEND=auto: CUDA when nvcc and a
# GPU are present, the host backend otherwise). Shares its build folder with
# scripts/examples.sh. Usage: scripts/test.sh [build-dir]   (default: build)
# UFUNC_CTEST_EXCLUDE='regex': tests to leave out (ctest -E; CI leaves out the
# examples scripts/examples.sh has just run from the same folder).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
bash scripts/configure.sh "$BUILD"
export PATH=/usr/local/cuda/bin:$PATH
cmake --build "$BUILD" -j "${JOBS:-$(nproc)}"
# The host pool takes fewer threads than OMP_NUM_THREADS on a busy machine
# (detail/host/parallel.hpp, machine_load); the suite runs every thread count it
# is given, so that results are compared at 16 threads even where CI is busy.
exclude=()
[ -z "${UFUNC_CTEST_EXCLUDE:-}" ] || exclude=(-E "$UFUNC_CTEST_EXCLUDE")
OMP_DYNAMIC=${OMP_DYNAMIC:-false} ctest --test-dir "$BUILD" --output-on-failure -j "${JOBS:-$(nproc)}" "${exclude[@]}"
