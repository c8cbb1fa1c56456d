#!/bin/bash
# Call 6 (one H200): the in-kernel finish of argmin/argmax (finish_counters).
# The reduction suites built on the VM at 16 threads (test_reduce_more with its
# new many-streams case, test_reduce, test_streaming_arg, test_random_lazy_reduce),
# memcheck and racecheck over the argmin/argmax cases, then probe_argmax4 and
# bench_lazy, old (HEAD) and new alternated.
nvidia-smi -L > $OUT/gpu.txt
xz -dc .gpu/ufunc_subset_tests.xz > /tmp/t && chmod +x /tmp/t
OMP_NUM_THREADS=16 timeout 200 /tmp/t > $OUT/tests.txt 2>&1; echo "rc=$?" >> $OUT/tests.txt
tc="reduce: argmin/argmax*,reduce: whole reductions captured*"
timeout 120 compute-sanitizer --tool memcheck /tmp/t -tc="$tc" > $OUT/memcheck.txt 2>&1; echo "rc=$?" >> $OUT/memcheck.txt
timeout 120 compute-sanitizer --tool racecheck /tmp/t -tc="reduce: argmin/argmax on many*" > $OUT/racecheck.txt 2>&1; echo "rc=$?" >> $OUT/racecheck.txt
for v in old new old new; do
  b=.gpu/probe_argmax4; [ $v = old ] && b=.gpu/probe_argmax4_old
  echo "== probe_argmax4 $v" >> $OUT/probe.txt; $b 2>&1 | grep -E "library|checks" >> $OUT/probe.txt
done
for v in old new old new; do
  b=.gpu/bench_lazy; [ $v = old ] && b=.gpu/bench_lazy_old
  echo "== bench_lazy $v" >> $OUT/bench_lazy.txt; timeout 60 $b 2>&1 | grep -E "argmax|dot = sum|FAIL" >> $OUT/bench_lazy.txt
done
grep -E "^\[doctest\]|ERROR|FAILED|failed" $OUT/tests.txt | tail -20 > $OUT/tests_summary.txt
