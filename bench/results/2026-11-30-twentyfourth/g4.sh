#!/bin/bash
# Call 4 (one H200): the subset (test_reduce, test_half_reduce at 49a0d2d, built
# here) at 16 threads; memcheck and racecheck over the whole-reduction cases
# (reduce_tile_kernel's paths); bench_reduce with the interleaved host-time
# measurement, twice.
mkdir -p /tmp/x && tar -C /tmp/x -xJf .gpu/bin.tar.xz && cd /tmp/x/bin
nvidia-smi -L > $OUT/gpu.txt
export OMP_NUM_THREADS=16
./subset > $OUT/subset.txt 2>&1; echo "rc=$?" >> $OUT/subset.txt
CS=/usr/local/cuda/bin/compute-sanitizer
$CS --tool memcheck --error-exitcode 3 ./subset -tc="reduce: whole*,16-bit floats: long whole*" > $OUT/memcheck.txt 2>&1; echo "rc=$?" >> $OUT/memcheck.txt
$CS --tool racecheck --error-exitcode 3 ./subset -tc="reduce: whole reductions at the one-block*" > $OUT/racecheck.txt 2>&1; echo "rc=$?" >> $OUT/racecheck.txt
for i in 1 2; do timeout 100 ./bench_reduce_new; done > $OUT/bench_reduce.txt 2>&1
tail -c 3000 $OUT/memcheck.txt > $OUT/memcheck_tail.txt; tail -c 3000 $OUT/racecheck.txt > $OUT/racecheck_tail.txt
