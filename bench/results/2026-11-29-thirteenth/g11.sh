#!/bin/bash
# Session 13, call 5: argmin_k (merged), both-sharded pairwise (one GPU), the topk change and the
# lazy-leaf test fix: tests, memcheck, bench_select_k, bench_sort's topk.
export PATH=/usr/local/cuda/bin:$PATH
R=$PWD
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
U="test_select_k.cpp;test_sharded_ring.cpp;test_random_lazy.cpp;test_sort.cpp"
cmake -S $R -B /tmp/n -G Ninja -DUFUNC_BACKEND=cuda -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_BUILD_TYPE=Release \
  -DUFUNC_DOCTEST_INCLUDE_DIR=$R/.deps/doctest -DUFUNC_BUILD_BENCH=ON "-DUFUNC_SUBSET_TESTS=$U" > /tmp/cfg.log 2>&1 || tail /tmp/cfg.log
timeout 235 ninja -C /tmp/n -j16 -k 0 ufunc_subset_tests bench_select_k bench_sort > /tmp/build.log 2>&1; echo "build rc $? at $(el) s" > $OUT/log.txt
grep -B2 -A12 "error" /tmp/build.log | head -30 >> $OUT/log.txt
awk 'NR>1{d=($2-$1)/1000; n=split($4,a,"/"); print int(d), a[n]}' /tmp/n/.ninja_log | sort -rn | head -7 >> $OUT/log.txt
echo "== tests at $(el) s" >> $OUT/log.txt
OMP_NUM_THREADS=16 timeout 45 /tmp/n/tests/ufunc_subset_tests > /tmp/tests.txt 2>&1; echo "tests rc $?" >> $OUT/log.txt
tail -3 /tmp/tests.txt >> $OUT/log.txt; grep -B4 -A14 "ERROR\|FAILED\|error:" /tmp/tests.txt | head -50 >> $OUT/log.txt
echo "== benches at $(el) s" >> $OUT/log.txt
timeout 40 /tmp/n/bench/bench_select_k 2>&1 | grep -E "ms|T/s|ratio|FAIL|differ" >> $OUT/log.txt
timeout 35 /tmp/n/bench/bench_sort 2>&1 | grep -E "topk|FAIL|mismatch" >> $OUT/log.txt
left=$((360 - $(el))); echo "== memcheck at $(el) s ($left s)" >> $OUT/log.txt
[ $left -gt 20 ] && timeout $left compute-sanitizer --tool memcheck /tmp/n/tests/ufunc_subset_tests -tc='select_k: k nearest*,select_k: long rows*,sharded ring: x_i and y_j both sharded over*' > /tmp/mc.txt 2>&1; echo "memcheck rc $?" >> $OUT/log.txt; tail -3 /tmp/mc.txt >> $OUT/log.txt
echo "done at $(el) s" >> $OUT/log.txt
cat $OUT/log.txt
