#!/usr/bin/env bash
# Every benchmark in one command, into one folder of CSVs, figures and a summary.
#   usage: scripts/bench_all.sh [--quick] [outdir]       (from anywhere)
# Full mode (a GPU machine): builds the CUDA benchmark targets (bench_sweep,
#   bench_core, bench_reduce, bench_linalg, bench_lazy, bench_pairwise, bench_stream, bench_half,
#   bench_tensor_core, bench_random, bench_gufunc, bench_sort,
#   bench_reduceat, bench_primitives), runs the sweep
#   (sweep.csv), the peers (peers.csv: NumPy, CuPy, PyTorch, Numba; a missing one
#   is skipped with a message), the four benchmark programs (their logs, and
#   targets.csv: every performance target with its measured value), then
#   bench/plot.py (summary.md always, PNGs when matplotlib is installed) and
#   packs it all into results.tar.gz. Default outdir: bench/results/<date>.
# --quick (CI, no GPU): the host backend, small sizes; checks every result,
#   asserts nothing about speed. BUILD names the build folder (default
#   build-bench-cuda / build-bench-host; CI passes its host build folder).
# Both modes also run bench_host (the host backend against a serial loop and the
#   read bandwidth; host.csv) and bench/peers/host_peers.py (NumPy, numexpr, Numba
#   on the host; host_peers.csv): on the GPU machine that measures its 16 cores.
# STEPS picks parts (default: build sweep host peers programs plot), e.g. two calls
#   `STEPS="build sweep" scripts/bench_all.sh out` then
#   `STEPS="peers programs plot" scripts/bench_all.sh out` where one call has a time limit.
set -uo pipefail
cd "$(dirname "$0")/.."
quick=0
[ "${1:-}" = "--quick" ] && { quick=1; shift; }
OUTDIR=${1:-bench/results/$(date -u +%Y-%m-%d)}
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)
export PATH=/usr/local/cuda/bin:$PATH
export BENCH_COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo -dirty)
JOBS=${JOBS:-$(nproc)}
t0=$SECONDS
STEPS=" ${STEPS:-build sweep host peers programs plot} "
want() { [[ "$STEPS" == *" $1 "* ]]; }
status=0
say() { printf '== [%3d s] %s\n' $((SECONDS - t0)) "$*"; }

if [ $quick = 1 ]; then
  BUILD=${BUILD:-build-bench-host}
  backend=host
  programs=""
else
  BUILD=${BUILD:-build-bench-cuda}
  backend=cuda
  programs="bench_core bench_reduce bench_linalg bench_lazy bench_pairwise bench_stream bench_half bench_tensor_core bench_random bench_gufunc bench_sort bench_reduceat bench_primitives"
fi

if want build; then
say "configure $BUILD ($backend backend)"
doctest_opt=()
[ -f .deps/doctest/doctest/doctest.h ] && doctest_opt=(-DUFUNC_DOCTEST_INCLUDE_DIR="$PWD/.deps/doctest")
cmake -S . -B "$BUILD" -G Ninja -DUFUNC_BACKEND=$backend -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_BUILD_TYPE=Release \
  -DUFUNC_BUILD_BENCH=ON "${doctest_opt[@]}" > "$OUTDIR/configure.log" 2>&1 || { cat "$OUTDIR/configure.log"; exit 1; }
say "build bench_sweep bench_host $programs ($JOBS jobs)"
targets=(--target bench_sweep --target bench_host)
for p in $programs; do targets+=(--target "$p"); done
cmake --build "$BUILD" -j "$JOBS" "${targets[@]}" > "$OUTDIR/build.log" 2>&1 ||
  { grep -E "error" -A3 "$OUTDIR/build.log" | head -40; exit 1; }
fi

quick_flag=()
[ $quick = 1 ] && quick_flag=(--quick)
if want sweep; then
say "bench_sweep ${quick_flag[*]}"
"$BUILD/bench/bench_sweep" "${quick_flag[@]}" --csv "$OUTDIR/sweep.csv" 2> "$OUTDIR/sweep_progress.log" | tee "$OUTDIR/sweep.log"
rc=${PIPESTATUS[0]}
[ $rc = 0 ] || { echo "bench_sweep failed (exit $rc):"; grep -A3 "CHECK FAILED" "$OUTDIR/sweep_progress.log" | head -20; status=1; }
fi

if want host; then
say "bench_host ${quick_flag[*]}"
"$BUILD/bench/bench_host" "${quick_flag[@]}" --csv "$OUTDIR/host.csv" | tee "$OUTDIR/host.log"
[ "${PIPESTATUS[0]}" = 0 ] || { echo "bench_host failed"; status=1; }
python3 bench/peers/host_peers.py "${quick_flag[@]}" --csv "$OUTDIR/host_peers.csv" | tee "$OUTDIR/host_peers.log"
[ "${PIPESTATUS[0]}" = 0 ] || { echo "host_peers.py failed"; status=1; }
fi

# the peers need the device's limits for their ratio column (from the sweep's first line)
peak=$(sed -n 's/^limits: peak bandwidth \([0-9.]*\) GB\/s, FP32 peak \([0-9.]*\) TFLOP.*/\1 \2/p' "$OUTDIR/sweep.log")
set -- $peak
if want peers; then
say "peers"
python3 bench/peers/peers.py "${quick_flag[@]}" --csv "$OUTDIR/peers.csv" --peak-gbs "${1:-0}" --fp32-tflops "${2:-0}" \
  2> "$OUTDIR/peers_progress.log" | tee "$OUTDIR/peers.log" || { grep -A3 "CHECK FAILED\|Error" "$OUTDIR/peers_progress.log" | head -20; status=1; }
fi

want programs || programs=""
[ -z "$programs" ] || rm -f "$OUTDIR/targets.csv"
for p in $programs; do
  say "$p"
  BENCH_SWEEP=0 BENCH_TARGETS_CSV="$OUTDIR/targets.csv" "$BUILD/bench/$p" > "$OUTDIR/$p.log" 2>&1 || status=1
  grep -A40 "^summary" "$OUTDIR/$p.log" | grep -E "PASS|FAIL|targets" | tail -20
done

if want plot; then
say "plots and summary"
if ! python3 -c "import matplotlib" 2>/dev/null; then
  echo "matplotlib not installed: summary.md only (figures: pip install matplotlib, then python3 bench/plot.py $OUTDIR)"
fi
python3 bench/plot.py "$OUTDIR" || status=1
(cd "$OUTDIR" && tar czf results.tar.gz --exclude=results.tar.gz ./*.csv ./*.md ./*.log $(ls ./*.png 2>/dev/null))
fi
say "done: $OUTDIR (results.tar.gz holds everything), exit $status"
exit $status
