#!/bin/bash
# Call 8 (one H200): after the review's pair_fixed_mask (798e99f): test_pairwise
# and test_select_k at 16 threads, memcheck over them, bench_pairwise once.
mkdir -p /tmp/w && tar -C /tmp/w -xJf .gpu/bin.tar.xz
B=/tmp/w/bin
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader > $OUT/gpu.txt
(time OMP_NUM_THREADS=16 $B/ufunc_subset_tests 2>&1 | tail -4) > $OUT/tests.txt 2>&1
(timeout 150 compute-sanitizer --tool memcheck $B/ufunc_subset_tests -tc="pairwise*,select_k: k nearest*" 2>&1 | tail -4) > $OUT/memcheck.txt 2>&1
timeout 60 $B/bench_pairwise > $OUT/bench_pairwise.txt 2>&1
cd $OUT && tar -czf results.tar.gz *.txt
