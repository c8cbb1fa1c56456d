#!/bin/bash
# Call 9 (one H200, 16 cores): the whole GPU suite built from scratch with 16
# jobs at this session's last code (the last-block finishes of argmin/argmax and
# of CUB's small whole reductions), run at OMP_NUM_THREADS=16; memcheck and
# racecheck over the cases that exercise those finishes; then bench_reduce,
# bench_lazy and bench_half (built on the VM at the same code) with the time left.
start=$(date +%s)
nvidia-smi -L > $OUT/gpu.txt; nproc >> $OUT/gpu.txt
cmake -S . -B /tmp/b -G Ninja -DUFUNC_BACKEND=cuda -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_BUILD_TYPE=Release \
  -DUFUNC_BUILD_TESTS=ON -DUFUNC_BUILD_BENCH=OFF -DUFUNC_BUILD_EXAMPLES=OFF \
  -DUFUNC_DOCTEST_INCLUDE_DIR=$PWD/.deps/doctest > $OUT/configure.txt 2>&1
b0=$(date +%s)
timeout 380 ninja -C /tmp/b -j16 ufunc_tests > $OUT/build.txt 2>&1
echo "build rc=$? $(( $(date +%s) - b0 )) s (configure $(( b0 - start )) s)" >> $OUT/build.txt
cp /tmp/b/.ninja_log $OUT/ninja_log.txt
left=$(( 440 - ($(date +%s) - start) ))
if [ -x /tmp/b/tests/ufunc_tests ] && [ $left -gt 20 ]; then
  t0=$(date +%s)
  OMP_NUM_THREADS=16 timeout $left /tmp/b/tests/ufunc_tests > $OUT/tests.txt 2>&1; echo "rc=$? $(( $(date +%s) - t0 )) s" >> $OUT/tests.txt
fi
tc="reduce: whole reductions on many*,reduce: whole reductions captured*,reduce: argmin/argmax against*"
left=$(( 470 - ($(date +%s) - start) ))
if [ -x /tmp/b/tests/ufunc_tests ] && [ $left -gt 15 ]; then
  timeout $left compute-sanitizer --tool memcheck /tmp/b/tests/ufunc_tests -tc="$tc" > $OUT/memcheck.txt 2>&1; echo "rc=$?" >> $OUT/memcheck.txt
fi
left=$(( 485 - ($(date +%s) - start) ))
if [ -x /tmp/b/tests/ufunc_tests ] && [ $left -gt 8 ]; then
  timeout $left compute-sanitizer --tool racecheck /tmp/b/tests/ufunc_tests -tc="reduce: whole reductions on many*" > $OUT/racecheck.txt 2>&1; echo "rc=$?" >> $OUT/racecheck.txt
fi
for b in bench_reduce bench_lazy bench_half; do
  left=$(( 525 - ($(date +%s) - start) ))
  [ $left -gt 8 ] && { timeout $left .gpu/$b > $OUT/$b.txt 2>&1; echo "rc=$?" >> $OUT/$b.txt; }
done
tail -c 20000 $OUT/tests.txt > $OUT/tests_tail.txt 2>/dev/null
grep -E "^\[doctest\]|ERROR|FAILED|failed" $OUT/tests.txt | tail -40 > $OUT/tests_summary.txt 2>/dev/null
rm -f $OUT/tests.txt
