#!/bin/bash
# Call 1: the GPU suite built with its smaller test files in groups (tests/CMakeLists.txt,
# UFUNC_TEST_GROUPS; per-unit nvcc phases through .gpu/nvtime.sh, a copy of
# bench/results/2026-12-02-thirtythird/nvtime.sh), 16 jobs; then run at 16 threads.
start=$(date +%s)
{ nvidia-smi -L; nproc; lscpu | grep -E "Model name" | head -1; ninja --version; } > $OUT/gpu.txt
cmake -S . -B /tmp/b -G Ninja -DUFUNC_BACKEND=cuda -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_BUILD_TYPE=Release \
  -DUFUNC_BUILD_TESTS=ON -DUFUNC_BUILD_BENCH=OFF -DUFUNC_BUILD_EXAMPLES=OFF \
  -DCMAKE_CUDA_COMPILER_LAUNCHER=$PWD/.gpu/nvtime.sh \
  -DUFUNC_DOCTEST_INCLUDE_DIR=$PWD/.gpu/doctest > $OUT/configure.txt 2>&1
b0=$(date +%s)
timeout 400 ninja -C /tmp/b -j16 ufunc_tests > $OUT/build.txt 2>&1
echo "build rc=$? $(( $(date +%s) - b0 )) s (configure $(( b0 - start )) s)" >> $OUT/build.txt
cp /tmp/b/.ninja_log $OUT/ninja_log.txt
cd $OUT/tu && tar czf ../tu.tgz . && cd - > /dev/null && rm -rf $OUT/tu
left=$(( 585 - ($(date +%s) - start) ))
if [ -x /tmp/b/tests/ufunc_tests ] && [ $left -gt 20 ]; then
  t0=$(date +%s)
  OMP_NUM_THREADS=16 timeout $left /tmp/b/tests/ufunc_tests > /tmp/tests.txt 2>&1; echo "rc=$? $(( $(date +%s) - t0 )) s" >> /tmp/tests.txt
  tail -c 20000 /tmp/tests.txt > $OUT/tests_tail.txt
  grep -E "^\[doctest\]|ERROR|FAILED|failed|^rc=" /tmp/tests.txt | tail -40 > $OUT/tests_summary.txt
fi
tail -2 $OUT/build.txt; cat $OUT/tests_summary.txt 2>/dev/null
