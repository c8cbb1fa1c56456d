#!/bin/bash
export PATH=/usr/local/cuda/bin:$PATH
R=$PWD
cmake -S $R -B /tmp/d -G Ninja -DUFUNC_BACKEND=cuda -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_BUILD_TYPE=Release \
  -DUFUNC_DOCTEST_INCLUDE_DIR=$R/.deps/doctest -DUFUNC_BUILD_BENCH=ON -DUFUNC_SUBSET_TESTS=test_gufunc.cpp > /tmp/cfg.log 2>&1
t0=$(date +%s); ninja -C /tmp/d -j16 ufunc_subset_tests bench_gufunc > /tmp/build.log 2>&1 || tail -20 /tmp/build.log; echo "build $(( $(date +%s) - t0 )) s"
OMP_NUM_THREADS=16 /tmp/d/tests/ufunc_subset_tests 2>&1 | tail -3
compute-sanitizer --tool memcheck /tmp/d/tests/ufunc_subset_tests -tc='gufunc on the GPU*' 2>&1 | tail -2
/tmp/d/bench/bench_gufunc 2>&1 | grep -E "ms|ratio|summary|FAIL|PASS" | grep -v "^  device copy"
