#!/bin/bash
# Call 8 (one H200): whole reductions through CUB whose first pass finishes
# them (finish_in_first_pass). The reduction suites built on the VM at 16
# threads; memcheck over the many-streams case and the whole-sum cases;
# probe_finish with max_partials 0 / 2048 / all, alternated; bench_reduce at
# HEAD (old) and with the change (new), alternated.
nvidia-smi -L > $OUT/gpu.txt
xz -dc .gpu/ufunc_subset_tests.xz > /tmp/t && chmod +x /tmp/t
OMP_NUM_THREADS=16 timeout 120 /tmp/t > $OUT/tests.txt 2>&1; echo "rc=$?" >> $OUT/tests.txt
timeout 90 compute-sanitizer --tool memcheck /tmp/t -tc="reduce: whole reductions on many*,reduce: whole reductions captured*,reduce: float sums use a tree order*" > $OUT/memcheck.txt 2>&1; echo "rc=$?" >> $OUT/memcheck.txt
for v in 0 2048 all 0 2048 all; do echo "== probe_finish $v" >> $OUT/probe.txt; timeout 40 .gpu/probe_finish_$v >> $OUT/probe.txt 2>&1; done
for v in old new old new; do
  b=.gpu/bench_reduce; [ $v = old ] && b=.gpu/bench_reduce_old
  echo "== bench_reduce $v" >> $OUT/bench_reduce.txt; timeout 60 $b 2>&1 | grep -E "Sum|sum|FAIL|floor" >> $OUT/bench_reduce.txt
done
grep -E "^\[doctest\]|ERROR|FAILED|failed" $OUT/tests.txt | tail -20 > $OUT/tests_summary.txt
