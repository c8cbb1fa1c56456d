#!/bin/bash
export PATH=/usr/local/cuda/bin:$PATH
R=$PWD
cfg() { cmake -S $R -B $1 -G Ninja -DUFUNC_BACKEND=cuda -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_BUILD_TYPE=Release \
  -DUFUNC_DOCTEST_INCLUDE_DIR=$R/.deps/doctest -DUFUNC_BUILD_BENCH=ON -DUFUNC_SUBSET_TESTS=test_gufunc.cpp "-DCMAKE_CUDA_FLAGS=$2" > $1.cfg.log 2>&1; ninja -C $1 $3 > $1.build.log 2>&1 || tail -20 $1.build.log; }
t0=$(date +%s)
cfg /tmp/d "" "bench_gufunc ufunc_subset_tests" & cfg /tmp/t2048 "-DUFUNC_GUFUNC_SM_THREADS=2048" bench_gufunc & cfg /tmp/t512 "-DUFUNC_GUFUNC_SM_THREADS=512" bench_gufunc & cfg /tmp/b64 "-DUFUNC_GUFUNC_BLOCK=64" bench_gufunc & wait
echo "build $(( $(date +%s) - t0 )) s"
OMP_NUM_THREADS=16 /tmp/d/tests/ufunc_subset_tests 2>&1 | tail -3
compute-sanitizer --tool memcheck /tmp/d/tests/ufunc_subset_tests -tc='gufunc*' 2>&1 | tail -3
compute-sanitizer --tool racecheck /tmp/d/tests/ufunc_subset_tests -tc='gufunc on the GPU*' 2>&1 | tail -2
for r in 1 2 3; do
  for v in d t2048 t512 b64; do echo "== $v round $r"; /tmp/$v/bench/bench_gufunc 2>&1 | grep -E "ms|ratio" | grep -v "peak\|copy /"; done
done
/tmp/d/bench/bench_gufunc > $OUT/bench_gufunc.txt 2>&1
