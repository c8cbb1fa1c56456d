#!/bin/bash
# Session 13, call 4: lazy random leaves (merged), topk selection, native add.at, cumsum on CUB's
# InclusiveSum: their tests on the GPU, memcheck, and bench_random / bench_sort / bench_primitives.
export PATH=/usr/local/cuda/bin:$PATH
R=$PWD
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
(lscpu | grep -E "Model name"; nproc; nvidia-smi --query-gpu=name,memory.total --format=csv,noheader) > $OUT/log.txt
U="test_random_lazy.cpp;test_random_lazy_reduce.cpp;test_random_lazy_more.cpp;test_random.cpp;test_sort.cpp;test_sort_half.cpp;test_sort_ints.cpp;test_ufunc_methods.cpp;test_lazy_device.cpp;test_pairwise.cpp"
cmake -S $R -B /tmp/n -G Ninja -DUFUNC_BACKEND=cuda -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_BUILD_TYPE=Release \
  -DUFUNC_DOCTEST_INCLUDE_DIR=$R/.deps/doctest -DUFUNC_BUILD_BENCH=ON "-DUFUNC_SUBSET_TESTS=$U" > /tmp/cfg.log 2>&1 || tail /tmp/cfg.log
ninja -C /tmp/n -j16 ufunc_subset_tests bench_sort bench_primitives bench_random > /tmp/build.log 2>&1; echo "build rc $? at $(el) s" >> $OUT/log.txt
grep -B2 -A12 "error" /tmp/build.log | head -40 >> $OUT/log.txt
awk 'NR>1{d=($2-$1)/1000; n=split($4,a,"/"); print int(d), a[n]}' /tmp/n/.ninja_log | sort -rn | head -8 >> $OUT/log.txt
echo "== tests at $(el) s" >> $OUT/log.txt
OMP_NUM_THREADS=16 timeout 150 /tmp/n/tests/ufunc_subset_tests > /tmp/tests.txt 2>&1; echo "tests rc $?" >> $OUT/log.txt
tail -3 /tmp/tests.txt >> $OUT/log.txt; grep -B4 -A14 "ERROR\|FAILED\|error:" /tmp/tests.txt | head -60 >> $OUT/log.txt
echo "== benches at $(el) s" >> $OUT/log.txt
timeout 60 /tmp/n/bench/bench_primitives 2>&1 | grep -E "ms|ratio|G/s|FAIL|differs" >> $OUT/log.txt
timeout 60 /tmp/n/bench/bench_sort 2>&1 | grep -E "topk|ratio|FAIL|mismatch" >> $OUT/log.txt
timeout 90 /tmp/n/bench/bench_random 2>&1 | grep -E "ms|ratio|G/s|FAIL|lazy" >> $OUT/log.txt
echo "== memcheck at $(el) s" >> $OUT/log.txt
left=$((585 - $(el)))
[ $left -gt 40 ] && timeout $left compute-sanitizer --tool memcheck /tmp/n/tests/ufunc_subset_tests -tc='random lazy: a leaf*,random lazy: every reduction*,sort: many rows*' > /tmp/mc.txt 2>&1; echo "memcheck rc $?" >> $OUT/log.txt; tail -3 /tmp/mc.txt >> $OUT/log.txt
echo "done at $(el) s" >> $OUT/log.txt
cat $OUT/log.txt
