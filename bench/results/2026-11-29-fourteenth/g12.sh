#!/bin/bash
# Session 14, call 1: the units never run on a GPU (test_select_k, test_sharded_ring, the
# corrected test_random_lazy, test_sort after the topk change), prebuilt on the 2-core VM
# at the commit in .gpu/bin/COMMIT; memcheck; bench_select_k's check lines.
export PATH=/usr/local/cuda/bin:$PATH
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
B=.gpu/bin
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader > $OUT/log.txt
cat $B/COMMIT >> $OUT/log.txt
echo "== tests at $(el) s" >> $OUT/log.txt
OMP_NUM_THREADS=16 timeout 120 $B/ufunc_subset_tests > /tmp/tests.txt 2>&1; echo "tests rc $?" >> $OUT/log.txt
tail -3 /tmp/tests.txt >> $OUT/log.txt; grep -B4 -A14 "ERROR\|FAILED\|error:" /tmp/tests.txt | head -60 >> $OUT/log.txt
echo "== bench_select_k at $(el) s" >> $OUT/log.txt
timeout 60 $B/bench_select_k > /tmp/bsk.txt 2>&1; echo "bench_select_k rc $?" >> $OUT/log.txt
grep -E -i "check|wrong|differ|fail|T pairs|ms" /tmp/bsk.txt | head -30 >> $OUT/log.txt
echo "== memcheck at $(el) s" >> $OUT/log.txt
timeout 300 compute-sanitizer --tool memcheck $B/ufunc_subset_tests -tc='select_k*,sharded ring*,random lazy: expressions*' > /tmp/mc.txt 2>&1; echo "memcheck rc $?" >> $OUT/log.txt
tail -4 /tmp/mc.txt >> $OUT/log.txt; grep -m5 -A8 "Invalid\|ERROR SUMMARY: [1-9]" /tmp/mc.txt >> $OUT/log.txt
echo "done at $(el) s" >> $OUT/log.txt
cp /tmp/tests.txt $OUT/tests.txt; cp /tmp/bsk.txt $OUT/bsk.txt
cat $OUT/log.txt
