#!/bin/bash
# Call 1 (one H200, 16 cores): the owed validation of 2198f5a and 7bed8ed (the
# finish counters in the device context; one last-block arrival helper and
# block_fold shared by both finishing kernels) together with this session's
# packed argmin/argmax finish (uncommitted working tree): the whole GPU suite
# built from scratch with 16 jobs, run at OMP_NUM_THREADS=16; memcheck and
# racecheck over the cases that exercise the last-block finishes; then
# bench_reduce, bench_lazy (HEAD) alternated with bench_lazy_new (this tree) and
# bench_half, built on the VM. Few files come back: everything goes to
# summary.txt, benches.txt, tests_tail.txt and ninja_log.txt.
start=$(date +%s)
S=$OUT/summary.txt
{ nvidia-smi -L; nproc; } > $S
cmake -S . -B /tmp/b -G Ninja -DUFUNC_BACKEND=cuda -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_BUILD_TYPE=Release \
  -DUFUNC_BUILD_TESTS=ON -DUFUNC_BUILD_BENCH=OFF -DUFUNC_BUILD_EXAMPLES=OFF \
  -DUFUNC_DOCTEST_INCLUDE_DIR=$PWD/.deps/doctest > /tmp/configure.txt 2>&1
b0=$(date +%s)
timeout 380 ninja -C /tmp/b -j16 ufunc_tests > /tmp/build.txt 2>&1
echo "build rc=$? $(( $(date +%s) - b0 )) s (configure $(( b0 - start )) s)" >> $S
grep -E "error|FAILED" /tmp/build.txt | head -20 >> $S
cp /tmp/b/.ninja_log $OUT/ninja_log.txt
left=$(( 430 - ($(date +%s) - start) ))
if [ -x /tmp/b/tests/ufunc_tests ] && [ $left -gt 20 ]; then
  t0=$(date +%s)
  OMP_NUM_THREADS=16 timeout $left /tmp/b/tests/ufunc_tests > /tmp/tests.txt 2>&1; echo "tests rc=$? $(( $(date +%s) - t0 )) s" >> $S
  grep -E "^\[doctest\]|ERROR|FAILED|failed" /tmp/tests.txt | tail -40 >> $S
  tail -c 20000 /tmp/tests.txt > $OUT/tests_tail.txt
fi
tc="reduce: whole reductions on many*,reduce: whole reductions captured*,reduce: argmin/argmax against*"
left=$(( 465 - ($(date +%s) - start) ))
if [ -x /tmp/b/tests/ufunc_tests ] && [ $left -gt 15 ]; then
  timeout $left compute-sanitizer --tool memcheck /tmp/b/tests/ufunc_tests -tc="$tc" > /tmp/memcheck.txt 2>&1; echo "memcheck rc=$?: $(grep 'ERROR SUMMARY' /tmp/memcheck.txt) $(grep 'test cases' /tmp/memcheck.txt)" >> $S
fi
left=$(( 480 - ($(date +%s) - start) ))
if [ -x /tmp/b/tests/ufunc_tests ] && [ $left -gt 8 ]; then
  timeout $left compute-sanitizer --tool racecheck /tmp/b/tests/ufunc_tests -tc="reduce: whole reductions on many*" > /tmp/racecheck.txt 2>&1; echo "racecheck rc=$?: $(grep 'RACECHECK SUMMARY' /tmp/racecheck.txt)" >> $S
fi
for b in bench_lazy_new bench_lazy bench_lazy_new bench_lazy bench_reduce bench_half; do
  left=$(( 570 - ($(date +%s) - start) ))
  [ $left -gt 8 ] && { echo "=== $b"; timeout $left .gpu/$b 2>&1; echo "rc=$?"; } >> $OUT/benches.txt
done
echo "total $(( $(date +%s) - start )) s" >> $S
