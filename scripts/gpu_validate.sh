#!/usr/bin/env bash
# The whole GPU validation of a change in one job (run it through
# scripts/gpu_bg.sh, which outlives the device tool's 10-minute calls):
#   1. build the suite, the examples and the benchmarks named below (all cores);
#   2. side by side: the unit tests, bounds tests and examples on the last GPU,
#      the benchmarks alone on GPU 0 (with two GPUs; one after the other with one);
#   3. compute-sanitizer memcheck, racecheck, synccheck and initcheck over the
#      unit tests (without the >2^31-element cases) and the examples, each tool
#      in SAN_SHARDS ranges of test cases, tools spread over the GPUs.
# With STEPS naming "multi" and two GPUs or more, first (machine otherwise idle):
# the sharded test cases with every GPU visible, example_multi_gpu, bench_multi_gpu.
# Logs go to $LOGS: progress.log (this), build.log, multi.log, unit.log,
# examples.log, bench.log, sanitize.log; `done` holds the verdict.
#   env: STEPS (default "build test bench sanitize"), BENCHES, BENCH_ALONE (benchmarks
#   run on an idle machine after "multi" and before anything else: host-staging
#   ones, whose OpenMP teams collapse when another process stages), TESTS (doctest
#   filter), SAN_SHARDS (3), UFUNC_STRESS_ITERS under the sanitizers (200;
#   SAN_RACE_ITERS for racecheck, which lost track of launches at 200), JOBS;
#   TEST_BIN (default ufunc_tests; another, e.g. ufunc_subset_tests with
#   CMAKE_EXTRA=-DUFUNC_SUBSET_TESTS=..., runs without the examples), BUILD_TARGETS,
#   SAN_TOOLS0 / SAN_TOOLS1 (the tools on GPU 0 / the last GPU).
set -uo pipefail
LOGS=${LOGS:-$PWD/gpu-out}
mkdir -p "$LOGS" "$LOGS/raw"
export NCCL_NVLS_ENABLE=0  # never NVLink multicast (shared machines)
STEPS=" ${STEPS:-build test bench sanitize} "
want() { [[ "$STEPS" == *" $1 "* ]]; }
BENCHES=${BENCHES-bench_half bench_stream bench_core bench_linalg}  # set and empty: none beside the tests
BUILD=build-gpu
if [ -n "${PREBUILT:-}" ]; then
  # Programs built elsewhere (scripts/gpu_prebuilt.sh, carried here): no build
  # step; the shared libraries they name (NCCL above all) found on this machine.
  if [[ "$PREBUILT" == *.tar.xz ]]; then
    python3 -c "import sys, tarfile; tarfile.open(sys.argv[1]).extractall('/tmp/prebuilt')" "$PREBUILT" || exit 1
    PREBUILT=/tmp/prebuilt/build-gpu-bin
  fi
  BUILD=$PREBUILT
  STEPS=${STEPS// build / }
fi
TEST_BIN=${TEST_BIN:-ufunc_tests}
status=0
say() { echo "[$(date -u +%T) +${SECONDS}s] $*"; }
finish() { say "end: $1"; echo "$1" > "$LOGS/done"; exit 0; }

say "devices"
nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv,noheader
ngpu=$(nvidia-smi -L | wc -l)
last=$((ngpu - 1))
python3 -c "import matplotlib; print('matplotlib', matplotlib.__version__)" 2>/dev/null || echo "matplotlib: not installed"

if [ -n "${PREBUILT:-}" ]; then
  say "prebuilt programs in $BUILD: $(head -c 200 "$BUILD/COMMIT" 2>/dev/null | tr '\n' ' ')"
  missing=$(ldd "$BUILD"/tests/* "$BUILD"/examples/* "$BUILD"/bench/* 2>/dev/null | awk '/not found/ {print $1}' | sort -u)
  if [ -n "$missing" ]; then
    echo "not found here: $missing; searching"
    dirs=$(python3 -c "import nvidia.nccl, os; print(os.path.dirname(nvidia.nccl.__file__) + '/lib')" 2>/dev/null)
    for lib in $missing; do
      hit=$(find $dirs /usr/local/cuda*/lib* /usr/lib/x86_64-linux-gnu /usr/local/lib /opt \
              $(python3 -c "import site; print(' '.join(site.getsitepackages()))" 2>/dev/null) \
              -name "$lib" 2>/dev/null | head -1)
      [ -n "$hit" ] && LD_LIBRARY_PATH=$(dirname "$hit")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} && echo "  $lib: $hit"
    done
    export LD_LIBRARY_PATH
    still=$(ldd "$BUILD"/tests/* "$BUILD"/examples/* "$BUILD"/bench/* 2>/dev/null | awk '/not found/ {print $1}' | sort -u)
    [ -z "$still" ] || finish "PREBUILT: missing libraries: $still"
  fi
fi

if want build; then
  say "build ($(nproc) jobs)"
  targets=${BUILD_TARGETS:-"ufunc_tests ufunc_bounds_tests ufunc_examples $BENCHES ${EXTRA_TARGETS:-}"}
  OUT=$LOGS/raw TARGETS="$targets" JOBS=${JOBS:-$(nproc --all)} BUILD=$BUILD bash scripts/gpu_check.sh build || status=1
  tail -c 200000 "$LOGS/raw/build.log" > "$LOGS/build.log"
  # The slowest translation units (ninja's log: start and end ms, target): what
  # bounds the build on many cores.
  { echo "== slowest targets (s)"; awk 'NR > 1 { printf "%7.1f %s\n", ($2 - $1) / 1000, $4 }' "$BUILD/.ninja_log" |
      sort -rn | head -20; } | tee -a "$LOGS/build.log"
  [ $status -eq 0 ] || finish "BUILD FAILED"
fi

run_multi() {  # every GPU visible, nothing else running: the sharded cases, example and bench
  say "multi-GPU: sharded tests, example_multi_gpu, bench_multi_gpu on $ngpu GPUs"
  export NCCL_NVLS_ENABLE=0
  "$BUILD/tests/$TEST_BIN" --test-case='*shard*' > "$LOGS/multi.log" 2>&1 || echo "SHARDED TESTS FAILED" >> "$LOGS/multi.log"
  tail -4 "$LOGS/multi.log"
  for exe in "$BUILD/examples/example_multi_gpu" "$BUILD/bench/bench_multi_gpu"; do
    [ -x "$exe" ] || continue
    echo "######## $(basename "$exe")" >> "$LOGS/multi.log"
    BENCH_SWEEP=0 timeout 500 "$exe" >> "$LOGS/multi.log" 2>&1
    local rc=$?
    [ $rc -eq 0 ] || echo "$(basename "$exe"): FAILED rc=$rc" >> "$LOGS/multi.log"
  done
  grep -E "FAILED|ratio|target|PASS|FAIL" "$LOGS/multi.log" | tail -30
  grep -q "FAILED" "$LOGS/multi.log" && status=1
}

run_tests() {  # unit tests, bounds tests, README example and every example
  local args=()
  [ -n "${TESTS:-}" ] && args=(--test-case="$TESTS")
  local t0=$SECONDS
  "$BUILD/tests/$TEST_BIN" "${args[@]}" > "$LOGS/unit.log" 2>&1 || echo "UNIT TESTS FAILED" >> "$LOGS/unit.log"
  echo "unit tests ($TEST_BIN): $((SECONDS - t0)) s" >> "$LOGS/unit.log"
  { [ -n "${TESTS:-}" ] || [ "$TEST_BIN" != ufunc_tests ]; } && return
  for exe in "$BUILD/tests/ufunc_bounds_tests" "$BUILD"/examples/example_*; do
    [ -x "$exe" ] || continue
    local name rc
    name=$(basename "$exe")
    t0=$SECONDS
    "$exe" > "$LOGS/raw/ex.out" 2>&1
    rc=$?
    if [ "$name" = example_histogram_debug ]; then
      grep -q "index 20 is out of range for extent 20" "$LOGS/raw/ex.out" && rc=0 || rc=1
    fi
    { echo "######## $name: rc=$rc ($((SECONDS - t0)) s)"; tail -c 6000 "$LOGS/raw/ex.out"; } >> "$LOGS/examples.log"
  done
}
run_benches() {  # $@: the benchmarks
  for b in "$@"; do
    say "bench $b" >> "$LOGS/bench.log"
    if [ "$b" = bench_stream ]; then  # CuPy's small-call figure before and after, same run
      timeout 120 python3 bench/peers/cupy_host_gauss.py 20 >> "$LOGS/bench.log" 2>&1
    fi
    BENCH_SWEEP=0 timeout 400 "$BUILD/bench/$b" >> "$LOGS/bench.log" 2>&1 || echo "$b: rc=$?" >> "$LOGS/bench.log"
    if [ "$b" = bench_stream ]; then
      timeout 120 python3 bench/peers/cupy_host_gauss.py 20 >> "$LOGS/bench.log" 2>&1
    fi
  done
}

run_sanitizers() {  # $1: the GPU of the first tool group, $2: that of the second
  say "compute-sanitizer, ${SAN_SHARDS:-3} shards per tool"
  export UFUNC_STRESS_ITERS=${UFUNC_STRESS_ITERS:-200}
  export SAN_PROGRESS=$LOGS/sanitize_progress.txt  # each run's verdict as it ends
  [ "$TEST_BIN" = ufunc_tests ] || export SANITIZE_EXAMPLES=0
  local pids=() rc=0
  (export CUDA_VISIBLE_DEVICES=$1; OUT=$LOGS/raw/s0 TARGETS=none SAN_SHARDS=${SAN_SHARDS:-3} BUILD=$BUILD SAN_BIN=$TEST_BIN \
     bash scripts/gpu_check.sh ${SAN_TOOLS0:-memcheck synccheck}) > "$LOGS/raw/san0.txt" 2>&1 & pids+=($!)
  (export CUDA_VISIBLE_DEVICES=$2; OUT=$LOGS/raw/s1 TARGETS=none SAN_SHARDS=${SAN_SHARDS:-3} BUILD=$BUILD SAN_BIN=$TEST_BIN \
     bash scripts/gpu_check.sh ${SAN_TOOLS1:-racecheck initcheck}) > "$LOGS/raw/san1.txt" 2>&1 & pids+=($!)
  for p in "${pids[@]}"; do wait "$p" || rc=1; done
  cat "$LOGS/raw/san0.txt" "$LOGS/raw/san1.txt"
  cat "$LOGS"/raw/s0/sanitize.log "$LOGS"/raw/s1/sanitize.log 2>/dev/null | tail -c 4000000 > "$LOGS/sanitize.log"
  say "sanitizers done"
  return $rc
}
# The multi-GPU step first, on an idle machine (STEPS names "multi"; two GPUs or more).
if want multi && [ "$ngpu" -ge 2 ]; then run_multi; fi
if want bench && [ -n "${BENCH_ALONE:-}" ]; then
  say "benchmarks alone on GPU 0: $BENCH_ALONE"
  (export CUDA_VISIBLE_DEVICES=0; run_benches $BENCH_ALONE)
  grep -E "^## |ratio|target|median|cupy" "$LOGS/bench.log" 2>/dev/null | tail -40
fi

if want sanitize && [ "${SAN_EARLY:-0}" = 1 ] && [ "$ngpu" -ge 2 ]; then
  # SAN_EARLY=1 with two GPUs: every tool on the last GPU while the tests and
  # benchmarks run (benchmarks on GPU 0; set OMP_NUM_THREADS to leave cores free).
  run_sanitizers "$last" "$last" > "$LOGS/raw/san.txt" 2>&1 &
  san_pid=$!
fi

if want test || want bench; then
  say "tests on GPU $last, benchmarks on GPU 0"
  pids=()
  if want test; then (export CUDA_VISIBLE_DEVICES=$last; run_tests) & pids+=($!); fi
  if [ "$ngpu" -lt 2 ]; then for p in "${pids[@]}"; do wait "$p"; done; pids=(); fi
  if want bench; then (export CUDA_VISIBLE_DEVICES=0; run_benches $BENCHES) & pids+=($!); fi
  for p in "${pids[@]}"; do wait "$p"; done
  grep -E "test cases|UNIT TESTS FAILED|unit tests:" "$LOGS/unit.log" 2>/dev/null
  grep -E "^######## " "$LOGS/examples.log" 2>/dev/null | grep -v "rc=0" && status=1
  grep -q "UNIT TESTS FAILED" "$LOGS/unit.log" 2>/dev/null && status=1
  grep -E "^## |ratio|target|median" "$LOGS/bench.log" 2>/dev/null | tail -60
fi

if want sanitize; then
  if [ -n "${san_pid:-}" ]; then
    wait "$san_pid" || status=1
    cat "$LOGS/raw/san.txt"
  else
    run_sanitizers 0 "$last" || status=1
  fi
fi
finish "$([ $status -eq 0 ] && echo OK || echo FAILURES)"
