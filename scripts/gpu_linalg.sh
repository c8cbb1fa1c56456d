#!/usr/bin/env bash
# matmul/transpose on the GPU machine in one call: configure and build the CUDA
# backend (tests, the two examples, bench_linalg), run the linalg tests and the
# examples, the benchmark, then the linalg tests under compute-sanitizer
# memcheck, racecheck and synccheck (the "large" cases excluded there: the
# tools slow kernels down 10-100x). Logs go to $OUT; a summary is printed last.
#   usage: scripts/gpu_linalg.sh     (from the repository root, or a worktree)
#   env:   BUILD (build dir, default /tmp/b-linalg), JOBS, STEPS (default
#          "test examples bench memcheck racecheck synccheck"), SAN_TIMEOUT (s),
#          FULL_TESTS=1 to build and use the whole ufunc_tests binary instead of
#          a linalg-only one (main.cpp + test_linalg.cpp, much faster to build)
set -uo pipefail
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
BUILD=${BUILD:-/tmp/b-linalg}
JOBS=${JOBS:-$(nproc)}
STEPS=${STEPS:-test examples bench memcheck racecheck synccheck}
SAN_TIMEOUT=${SAN_TIMEOUT:-150}
export PATH=/usr/local/cuda/bin:$PATH
summary=()
status=0
step() { echo; echo "==== $*"; }
want() { [[ " $STEPS " == *" $1 "* ]]; }
note() { summary+=("$*"); }

step "device"
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.max.sm,clocks.mem,driver_version --format=csv | tee "$OUT/device.txt"

# doctest: the repository's .deps (GPU machines have no apt), also when this
# runs from a worktree under .wt/<name>.
doctest_opt=()
for d in .deps/doctest ../../.deps/doctest; do
  if [ -f "$d/doctest/doctest.h" ]; then doctest_opt=(-DUFUNC_DOCTEST_INCLUDE_DIR="$(cd "$d" && pwd)"); break; fi
done

step "configure + build ($JOBS jobs)"
t0=$(date +%s)
cmake -S . -B "$BUILD" -G Ninja -DUFUNC_BACKEND=cuda -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release \
  -DUFUNC_BUILD_BENCH=ON "${doctest_opt[@]}" > "$OUT/configure.log" 2>&1 || { tail -30 "$OUT/configure.log"; exit 1; }
if [ "${FULL_TESTS:-0}" = 1 ]; then  # the whole ufunc_tests binary (every test source: slow to build)
  targets=(ufunc_tests example_matmul example_transpose bench_linalg)
  TESTS="$BUILD/tests/ufunc_tests"
else  # only main.cpp + test_linalg.cpp, built with nvcc beside the CMake targets
  targets=(example_matmul example_transpose bench_linalg)
  TESTS="$BUILD/linalg_tests"
  inc=${doctest_opt[0]#-DUFUNC_DOCTEST_INCLUDE_DIR=}
  flags=(-std=c++17 -O3 -arch=sm_90 --extended-lambda -Xcompiler=-fopenmp -DUFUNC_BACKEND_CUDA
         -DUFUNC_POISON_ALLOCATIONS -Iinclude ${inc:+-I"$inc"} -x cu)
  mkdir -p "$BUILD"
  ( nvcc "${flags[@]}" -c tests/main.cpp -o "$BUILD/lt_main.o" &&
    nvcc "${flags[@]}" -c tests/test_linalg.cpp -o "$BUILD/lt_linalg.o" ) > "$OUT/build_tests.log" 2>&1 &
  tests_pid=$!
fi
cmake --build "$BUILD" -j "$JOBS" --target "${targets[@]}" \
  > "$OUT/build.log" 2>&1 || { grep -E "error" "$OUT/build.log" | head -30; tail -20 "$OUT/build.log"; exit 1; }
if [ -n "${tests_pid:-}" ]; then
  wait "$tests_pid" && nvcc -arch=sm_90 "$BUILD/lt_main.o" "$BUILD/lt_linalg.o" -o "$TESTS" -Xcompiler=-fopenmp \
    >> "$OUT/build_tests.log" 2>&1 || { grep -E "error" "$OUT/build_tests.log" | head -30; exit 1; }
fi
echo "build ok in $(( $(date +%s) - t0 )) s"
note "build: ok ($(( $(date +%s) - t0 )) s)"

FILTER='-tc=*matmul*,*transpose*'

if want test; then
  step "linalg tests"
  "$TESTS" "$FILTER" 2>&1 | tee "$OUT/tests.log" | tail -15
  rc=${PIPESTATUS[0]}
  note "tests ($FILTER): rc=$rc $(grep -E 'test cases:' "$OUT/tests.log" | tail -1)"
  [ "$rc" -eq 0 ] || status=1
fi

if want examples; then
  step "examples"
  : > "$OUT/examples.log"
  for ex in matmul transpose; do
    "$BUILD/examples/example_$ex" 2>&1 | tee -a "$OUT/examples.log"
    rc=${PIPESTATUS[0]}
    note "example_$ex: rc=$rc"
    [ "$rc" -eq 0 ] || status=1
  done
fi

if want bench; then
  step "bench_linalg"
  "$BUILD/bench/bench_linalg" 2>&1 | tee "$OUT/bench.log"
  note "bench: $(tail -1 "$OUT/bench.log")"
fi

san() {  # tool, extra args...
  local tool=$1; shift
  step "compute-sanitizer $tool"
  timeout "$SAN_TIMEOUT" compute-sanitizer --tool "$tool" "$@" --error-exitcode 97 "$TESTS" "$FILTER" \
    --test-case-exclude='*large*' > "$OUT/$tool.log" 2>&1
  local rc=$?
  local verdict
  verdict=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/$tool.log" | tail -1)
  echo "$tool: rc=$rc ${verdict}"
  grep -E "test cases:" "$OUT/$tool.log" | tail -1
  note "$tool: rc=$rc ${verdict:-(no summary)}"
  [ "$rc" -eq 0 ] || status=1
}
want memcheck && san memcheck --report-api-errors no
want racecheck && san racecheck --racecheck-report all
want synccheck && san synccheck

echo
echo "==== summary"
printf '  %s\n' "${summary[@]}"
grep -E "^  .*(PASS|FAIL)$" "$OUT/bench.log" 2>/dev/null
echo "gpu_linalg: $([ $status -eq 0 ] && echo OK || echo FAILURES)"
exit $status
