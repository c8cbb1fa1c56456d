#!/usr/bin/env bash
# Everything the GPU machine has to do, in one call: configure and build the CUDA
# backend with all cores, run the test suite and examples, run them again under
# compute-sanitizer memcheck, and run the benchmark. Logs go to $OUT (or ./gpu-out).
#   usage: scripts/gpu_check.sh            (from the repository root)
# doctest is taken from .deps/doctest when present (the GPU machine has no apt).
set -uo pipefail
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
BUILD=${BUILD:-build-gpu}
JOBS=${JOBS:-$(nproc)}
status=0
step() { echo; echo "==== $*"; }

step "device"
nvidia-smi --query-gpu=name,memory.total,clocks.max.memory,driver_version --format=csv | tee "$OUT/device.txt"

step "configure + build ($JOBS jobs)"
doctest_opt=()
[ -f .deps/doctest/doctest/doctest.h ] && doctest_opt=(-DUFUNC_DOCTEST_INCLUDE_DIR="$PWD/.deps/doctest")
cmake -S . -B "$BUILD" -G Ninja -DUFUNC_BACKEND=cuda -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release \
  "${doctest_opt[@]}" > "$OUT/configure.log" 2>&1 || { cat "$OUT/configure.log"; exit 1; }
cmake --build "$BUILD" -j "$JOBS" > "$OUT/build.log" 2>&1 || { tail -50 "$OUT/build.log"; exit 1; }
echo "build ok"

step "ctest (tests, examples, consumer)"
ctest --test-dir "$BUILD" --output-on-failure -j 4 2>&1 | tee "$OUT/ctest.log" | tail -25
grep -q "100% tests passed" "$OUT/ctest.log" || status=1
"$BUILD/tests/ufunc_tests" 2>&1 | tail -3 | tee -a "$OUT/ctest.log"

step "compute-sanitizer memcheck"
: > "$OUT/memcheck.log"
# The >2^31-element cases ran above; under memcheck they would take most of the
# lease, so they are left out here (doctest filter).
for exe in "$BUILD/tests/ufunc_tests" "$BUILD"/examples/example_*; do
  args=()
  [ "$(basename "$exe")" = ufunc_tests ] && args=(--test-case-exclude='*2^31*')
  echo "-- $exe ${args[*]}" >> "$OUT/memcheck.log"
  # API errors are not reported: the tests and the overflow example provoke
  # cudaErrorMemoryAllocation and cudaErrorInvalidDevice on purpose (they check
  # the typed exceptions); memcheck's verdict is on memory accesses.
  compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 97 "$exe" "${args[@]}" \
    >> "$OUT/memcheck.log" 2>&1
  rc=$?
  summary=$(grep -E "ERROR SUMMARY" "$OUT/memcheck.log" | tail -1)
  echo "$(basename "$exe"): rc=$rc ${summary}"
  [ $rc -eq 0 ] || status=1
done

if [ "${SKIP_BENCH:-0}" != 1 ]; then
  step "benchmark"
  "$BUILD/bench/bench_core" 2>&1 | tee "$OUT/bench.log"
fi
echo
echo "gpu_check: $([ $status -eq 0 ] && echo OK || echo FAILURES)"
exit $status
