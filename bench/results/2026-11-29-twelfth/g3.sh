#!/bin/bash
export PATH=/usr/local/cuda/bin:$PATH
R=$PWD
cfg() { cmake -S $R -B $1 -G Ninja -DUFUNC_BACKEND=cuda -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_BUILD_TYPE=Release \
  -DUFUNC_DOCTEST_INCLUDE_DIR=$R/.deps/doctest -DUFUNC_BUILD_BENCH=ON -DUFUNC_SUBSET_TESTS=test_gufunc.cpp "-DCMAKE_CUDA_FLAGS=$2" > $1.cfg.log 2>&1; ninja -C $1 $3 > $1.build.log 2>&1 || tail -20 $1.build.log; }
t0=$(date +%s)
cfg /tmp/d "" "bench_gufunc ufunc_subset_tests" & cfg /tmp/b64 "-DUFUNC_GUFUNC_BLOCK=64" bench_gufunc & cfg /tmp/b96 "-DUFUNC_GUFUNC_BLOCK=96" bench_gufunc & cfg /tmp/none "-DUFUNC_GUFUNC_SMEM=0" bench_gufunc & cfg /tmp/m0 "-DUFUNC_GUFUNC_STAGE_MIN=0" bench_gufunc & cfg /tmp/a64 "-DUFUNC_GUFUNC_ASYNC=1 -DUFUNC_GUFUNC_BLOCK=64" "bench_gufunc ufunc_subset_tests" & cfg /tmp/a32 "-DUFUNC_GUFUNC_ASYNC=1 -DUFUNC_GUFUNC_BLOCK=32" bench_gufunc & wait
echo "build $(( $(date +%s) - t0 )) s"
OMP_NUM_THREADS=16 /tmp/d/tests/ufunc_subset_tests 2>&1 | tail -4
compute-sanitizer --tool memcheck /tmp/d/tests/ufunc_subset_tests -tc='gufunc on the GPU*' 2>&1 | tail -3
echo "== async 64 tests"; OMP_NUM_THREADS=16 /tmp/a64/tests/ufunc_subset_tests 2>&1 | tail -4
compute-sanitizer --tool memcheck /tmp/a64/tests/ufunc_subset_tests -tc='gufunc on the GPU*' 2>&1 | tail -3
compute-sanitizer --tool racecheck /tmp/a64/tests/ufunc_subset_tests -tc='gufunc on the GPU*' 2>&1 | tail -3
for r in 1 2; do
  for v in d b64 b96 none m0 a64 a32; do echo "== $v round $r"; /tmp/$v/bench/bench_gufunc 2>&1 | grep -E "ms|ratio" | grep -v "peak\|copy /"; done
done

