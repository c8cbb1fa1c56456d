#!/usr/bin/env bash
# Everything the GPU machine has to do, in one call: configure and build the CUDA
# backend with all cores, run the test suite and examples (ctest), run them again
# under compute-sanitizer (memcheck, racecheck, synccheck, initcheck), and run the
# benchmarks. Logs go to $OUT (or ./gpu-out).
#   usage: scripts/gpu_check.sh [steps]     (from the repository root)
#   steps: any of build test memcheck racecheck synccheck initcheck bench (default: all),
#          e.g. `scripts/gpu_check.sh build test bench` when a lease is short.
#   TESTS='doctest filter' restricts the unit-test cases run by the test and
#   sanitizer steps (e.g. TESTS='reduce*'); BENCHES='bench_reduce' the benchmarks;
#   TARGETS='ufunc_tests bench_reduce' the build; SANITIZE_EXAMPLES=0 keeps the
#   examples out of the sanitizer steps; SAN_BIN the test program they run
#   (default ufunc_tests); CMAKE_EXTRA more configure arguments.
# doctest is taken from .deps/doctest when present (the GPU machine has no apt).
set -uo pipefail
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
BUILD=${BUILD:-build-gpu}
JOBS=${JOBS:-$(nproc)}
STEPS=${*:-build test memcheck racecheck synccheck initcheck bench}
TESTS=${TESTS:-}
status=0
step() { echo; echo "==== $*"; }
want() { [[ " $STEPS " == *" $1 "* ]]; }

step "device"
nvidia-smi --query-gpu=name,memory.total,clocks.max.memory,driver_version --format=csv | tee "$OUT/device.txt"

# The device tool copies the working tree anew for every call, so every source
# file looks newer than a build folder kept from the last call on the same warm
# machine, and ninja would rebuild everything (about 7 minutes for ufunc_tests on
# 16 cores). A manifest of each source's hash and mtime, written after a build,
# lets the next call give unchanged files their old mtime back: only what
# changed is rebuilt.
manifest="$BUILD/.source_mtimes"
source_files() { find include tests examples bench cmake CMakeLists.txt -type f \
                   \( -name '*.hpp' -o -name '*.cuh' -o -name '*.cpp' -o -name '*.cu' -o -name '*.txt' \
                      -o -name '*.cmake' -o -name '*.in' \) 2>/dev/null; }
restore_mtimes() {
  [ -f "$manifest" ] || return 0
  local n=0 sum mtime path
  while read -r sum mtime path; do
    [ -f "$path" ] || continue
    [ "$(sha1sum < "$path" | cut -c1-40)" = "$sum" ] || continue
    touch -d "@$mtime" "$path" && n=$((n + 1))
  done < "$manifest"
  echo "kept the old mtime of $n unchanged source files"
}
record_mtimes() {
  local f
  source_files | while read -r f; do echo "$(sha1sum < "$f" | cut -c1-40) $(stat -c %Y "$f") $f"; done > "$manifest"
}

if want build; then
  restore_mtimes
  step "configure + build ($JOBS jobs)"
  doctest_opt=()
  [ -f .deps/doctest/doctest/doctest.h ] && doctest_opt=(-DUFUNC_DOCTEST_INCLUDE_DIR="$PWD/.deps/doctest")
  # shellcheck disable=SC2086
  cmake -S . -B "$BUILD" -G Ninja -DUFUNC_BACKEND=cuda -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_BUILD_TYPE=Release \
    "${doctest_opt[@]}" ${CMAKE_EXTRA:-} > "$OUT/configure.log" 2>&1 || { cat "$OUT/configure.log"; exit 1; }
  targets=()
  for t in ${TARGETS:-}; do targets+=(--target "$t"); done
  t0=$SECONDS
  cmake --build "$BUILD" -j "$JOBS" "${targets[@]}" > "$OUT/build.log" 2>&1
  rc=$?
  record_mtimes
  [ $rc -eq 0 ] || { grep -E "error" -A3 "$OUT/build.log" | head -60; exit 1; }
  echo "build ok ($((SECONDS - t0)) s)"
fi

test_args=()
[ -n "$TESTS" ] && test_args=(--test-case="$TESTS")

if want test; then
  step "ctest (tests, examples, consumer)"
  # (binaries built elsewhere and carried in have no ctest files: unit tests only)
  if [ -z "$TESTS" ] && [ -z "${TARGETS:-}" ] && [ -f "$BUILD/CTestTestfile.cmake" ]; then
    ctest_ex=()
    [ -n "${CTEST_EXCLUDE:-}" ] && ctest_ex=(-E "$CTEST_EXCLUDE")
    ctest --test-dir "$BUILD" --output-on-failure -j 4 "${ctest_ex[@]}" 2>&1 | tee "$OUT/ctest.log" | tail -30
    grep -q "100% tests passed" "$OUT/ctest.log" || status=1
  fi
  # Carried-in binaries: run the examples directly (ctest's checks, by hand).
  if [ -z "$TESTS" ] && [ ! -f "$BUILD/CTestTestfile.cmake" ]; then
    for exe in "$BUILD"/examples/example_* "$BUILD/tests/ufunc_bounds_tests" "$BUILD/tests/readme_example"; do
      [ -x "$exe" ] || continue
      name=$(basename "$exe")
      "$exe" > "$OUT/example.out" 2>&1
      rc=$?
      if [ "$name" = example_histogram_debug ]; then
        grep -q "index 20 is out of range for extent 20" "$OUT/example.out" && rc=0 || rc=1
      fi
      # one log for all ($OUT returns few files)
      { echo "######## $name: rc=$rc"; cat "$OUT/example.out"; } >> "$OUT/examples.log"
      echo "$name: $([ $rc -eq 0 ] && echo passed || echo "FAILED (rc=$rc)")"
      [ $rc -eq 0 ] || { status=1; tail -20 "$OUT/example.out"; }
    done
    rm -f "$OUT/example.out"
  fi
  "$BUILD/tests/ufunc_tests" "${test_args[@]}" > "$OUT/unit.log" 2>&1 || status=1
  tail -4 "$OUT/unit.log"
  grep -B2 -A12 "ERROR\|FATAL" "$OUT/unit.log" | head -80
fi

# One sanitizer tool over the unit tests and the examples. Left out:
# - the >2^31-element cases (they ran above; under a sanitizer they would take
#   most of the lease); every other unit test runs under every tool;
# - example_atomic_counter under racecheck: it races on purpose (the lesson);
# - example_half_precision under racecheck: too long (below);
# - example_histogram_debug: it traps on purpose (UFUNC_DEBUG bounds check).
# API errors are not reported: the tests and the overflow example provoke
# cudaErrorMemoryAllocation and cudaErrorInvalidDevice on purpose (they check the
# typed exceptions); the sanitizers' verdict is on memory accesses, races and
# barriers.
# sanitize TOOL SHARD NSHARDS [tool args]: one tool over the unit tests (the
# SHARD-th of NSHARDS contiguous ranges of test cases, doctest's --first/--last)
# and, in shard 0, the examples.
sanitize() {
  local tool=$1 shard=$2 nshards=$3
  shift 3
  local log=${SAN_LOG:-$OUT/sanitize.log}  # one file for all tools ($OUT returns few files)
  echo "######## $tool (shard $((shard + 1)) of $nshards)" >> "$log"
  local bin=${SAN_BIN:-ufunc_tests}  # or ufunc_subset_tests (tests/CMakeLists.txt)
  for exe in "$BUILD/tests/$bin" "$BUILD"/examples/example_*; do
    [ -x "$exe" ] || continue
    local name
    name=$(basename "$exe")
    if [ "$name" != "$bin" ]; then
      [ "${SANITIZE_EXAMPLES:-1}" = 0 ] || [ "$shard" != 0 ] && continue
    fi
    case $name in
      # traps on purpose (UFUNC_DEBUG); long runs whose kernels the unit tests
      # cover under every tool (naive matmul at 4096^3, sums up to 2^27)
      example_histogram_debug | example_matmul | example_transpose | example_sum_reduction | example_abs_sum | \
      example_kernel_density | example_nearest_neighbors) continue ;;
    esac
    [ "$tool" = racecheck ] && [ "$name" = example_atomic_counter ] && continue
    # racecheck over its timed 4096^3 tensor-core matmul ran past 500 s; the
    # unit tests (test_half*.cpp) cover those kernels under racecheck.
    [ "$tool" = racecheck ] && [ "$name" = example_half_precision ] && continue
    local args=()
    if [ "$name" = "$bin" ]; then
      args=(--test-case-exclude='*2^31*')
      [ -n "${SAN_TESTS:-$TESTS}" ] && args+=(--test-case="${SAN_TESTS:-$TESTS}")
      if [ "$nshards" -gt 1 ]; then
        local n
        n=$("$exe" "${args[@]}" --list-test-cases | sed -n 's/.*passing the current filters: \([0-9]*\).*/\1/p')
        args+=(--first=$((shard * n / nshards + 1)) --last=$(((shard + 1) * n / nshards)))
      fi
    fi
    echo "-- $exe ${args[*]}" >> "$log"
    local t0=$SECONDS
    local iters=${UFUNC_STRESS_ITERS:-}
    [ "$tool" = racecheck ] && [ -n "${SAN_RACE_ITERS:-}" ] && iters=$SAN_RACE_ITERS
    [ -n "$iters" ] && echo "   (UFUNC_STRESS_ITERS=$iters)" >> "$log"
    # racecheck with launches blocking: with several host threads launching at once
    # it reported "Internal Sanitizer Error: Detected a failure to track a kernel
    # launch" and then stalled (the sharded four-thread case, H100 and H200, 13.0
    # tools); blocking, that case runs clean in 2 s. Racecheck's hazards are within
    # one kernel, so blocking launches hides none of them.
    local lb=
    [ "$tool" = racecheck ] && lb=CUDA_LAUNCH_BLOCKING=1
    env ${iters:+UFUNC_STRESS_ITERS=$iters} $lb timeout "${SAN_TIMEOUT:-36000}" compute-sanitizer --tool "$tool" "$@" --report-api-errors no --error-exitcode 97 \
      "$exe" "${args[@]}" >> "$log" 2>&1
    local rc=$?
    local what
    what=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -1)
    [ $rc -eq 124 ] && what="TIMED OUT after ${SAN_TIMEOUT:-} s"
    # Also appended at once to SAN_PROGRESS (when set): a call killed at its limit
    # keeps the verdicts of the runs that finished.
    echo "$tool $name ${args[*]:1}: rc=$rc $what, $((SECONDS - t0)) s" | tee -a "${SAN_PROGRESS:-/dev/null}"
    [ $rc -eq 0 ] || status=1
  done
}
# initcheck: every device read is of memory written before (by a kernel or a copy).
san_args() {
  case $1 in racecheck) echo --racecheck-report all ;; esac
}
tools=()
for t in memcheck racecheck synccheck initcheck; do want $t && tools+=("$t"); done
nshards=${SAN_SHARDS:-1}
if [ ${#tools[@]} -gt 0 ] && { [ "${SAN_PARALLEL:-0}" = 1 ] || [ "$nshards" -gt 1 ]; }; then
  # Every (tool, shard) its own process on the one GPU, side by side; their logs
  # wait in a temporary folder ($OUT returns few files) and are joined after.
  step "compute-sanitizer ${tools[*]}, $nshards shard(s) each, side by side"
  t0=$SECONDS
  tmp=$(mktemp -d)
  pids=()
  for t in "${tools[@]}"; do
    for ((k = 0; k < nshards; ++k)); do
      # shellcheck disable=SC2046
      (status=0; SAN_LOG="$tmp/$t-$k.log" sanitize "$t" $k "$nshards" $(san_args "$t") > "$tmp/$t-$k.sum" 2>&1
       exit $status) &
      pids+=($!)
    done
  done
  for p in "${pids[@]}"; do wait "$p" || status=1; done
  for t in "${tools[@]}"; do
    for ((k = 0; k < nshards; ++k)); do cat "$tmp/$t-$k.sum"; cat "$tmp/$t-$k.log" >> "$OUT/sanitize.log"; done
  done
  rm -rf "$tmp"
  echo "sanitizers: $((SECONDS - t0)) s"
else
  for t in "${tools[@]}"; do
    # shellcheck disable=SC2046
    step "compute-sanitizer $t"; sanitize "$t" 0 1 $(san_args "$t")
  done
fi

if want bench; then
  for b in ${BENCHES:-bench_core bench_reduce bench_linalg bench_lazy}; do
    [ -x "$BUILD/bench/$b" ] || continue
    step "benchmark $b"
    BENCH_SWEEP=${BENCH_SWEEP:-0} "$BUILD/bench/$b" 2>&1 | tee -a "$OUT/bench.log"
  done
fi
echo
echo "gpu_check: $([ $status -eq 0 ] && echo OK || echo FAILURES)"
exit $status
