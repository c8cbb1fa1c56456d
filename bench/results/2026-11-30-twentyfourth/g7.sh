#!/bin/bash
# Call 7 (one H200; NOT RUN: refused, the session's device time was spent), after the review's mend (reduce_all_policies takes CUB's own
# first-pass policy type; the one-block test past 1,024 partials): test_reduce and
# test_sum_accuracy at 16 threads, memcheck over the one-block case, bench_reduce once.
mkdir -p /tmp/x && tar -C /tmp/x -xJf .gpu/bin.tar.xz && cd /tmp/x/bin
nvidia-smi -L > $OUT/gpu.txt
export OMP_NUM_THREADS=16
timeout 60 ./subset > $OUT/subset.txt 2>&1; echo "rc=$?" >> $OUT/subset.txt
timeout 60 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 3 ./subset -tc="reduce: whole reductions at the one-block*" > $OUT/memcheck.txt 2>&1; echo "rc=$?" >> $OUT/memcheck.txt
timeout 40 ./bench_reduce_new > $OUT/bench_reduce.txt 2>&1; echo "rc=$?" >> $OUT/bench_reduce.txt
tail -c 2500 $OUT/memcheck.txt > $OUT/memcheck_tail.txt; rm $OUT/memcheck.txt
