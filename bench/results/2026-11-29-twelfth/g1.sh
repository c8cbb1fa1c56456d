#!/bin/bash
# gufunc staging: build (16 jobs), tests, memcheck, bench variants.
export PATH=/usr/local/cuda/bin:$PATH
R=$PWD
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $OUT/device.txt
cfg() { cmake -S $R -B $1 -G Ninja -DUFUNC_BACKEND=cuda -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_BUILD_TYPE=Release \
  -DUFUNC_DOCTEST_INCLUDE_DIR=$R/.deps/doctest -DUFUNC_BUILD_BENCH=ON -DUFUNC_SUBSET_TESTS=test_gufunc.cpp "-DCMAKE_CUDA_FLAGS=$2" > $1.cfg.log 2>&1; }
t0=$(date +%s)
cfg /tmp/b "" & cfg /tmp/b0 "-DUFUNC_GUFUNC_SMEM=0" & cfg /tmp/b64 "-DUFUNC_GUFUNC_BLOCK=64" & cfg /tmp/b256 "-DUFUNC_GUFUNC_BLOCK=256 -DUFUNC_GUFUNC_SMEM=200*1024" & wait
(ninja -C /tmp/b ufunc_subset_tests bench_gufunc > $OUT/build.log 2>&1; echo "main build rc $?" >> $OUT/build.log) &
ninja -C /tmp/b0 bench_gufunc > $OUT/b0.log 2>&1 &
ninja -C /tmp/b64 bench_gufunc > $OUT/b64.log 2>&1 &
ninja -C /tmp/b256 bench_gufunc > $OUT/b256.log 2>&1 &
wait
echo "build $(( $(date +%s) - t0 )) s" | tee -a $OUT/log.txt
tail -3 $OUT/build.log $OUT/b0.log $OUT/b64.log $OUT/b256.log >> $OUT/log.txt
OMP_NUM_THREADS=16 /tmp/b/tests/ufunc_subset_tests 2>&1 | tail -30 >> $OUT/log.txt
compute-sanitizer --tool memcheck /tmp/b/tests/ufunc_subset_tests -tc='gufunc on the GPU*' 2>&1 | tail -8 >> $OUT/log.txt
for r in 1 2; do
  for v in b b0 b64 b256; do echo "== $v round $r" >> $OUT/log.txt; /tmp/$v/bench/bench_gufunc >> $OUT/log.txt 2>&1; done
done
cat $OUT/log.txt
