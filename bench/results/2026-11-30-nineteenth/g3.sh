#!/bin/bash
# Call 4 (two H200s, 32 cores): the whole GPU suite built with 32 jobs at this
# session's tip and run on both GPUs (the sharded cases over two devices).
start=$(date +%s)
nvidia-smi -L > $OUT/gpu.txt; nproc >> $OUT/gpu.txt
cmake -S . -B /tmp/b -G Ninja -DUFUNC_BACKEND=cuda -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_BUILD_TYPE=Release \
  -DUFUNC_BUILD_TESTS=ON -DUFUNC_BUILD_BENCH=OFF -DUFUNC_BUILD_EXAMPLES=OFF \
  -DUFUNC_DOCTEST_INCLUDE_DIR=$PWD/.deps/doctest > $OUT/configure.txt 2>&1
b0=$(date +%s)
timeout 400 ninja -C /tmp/b -j32 ufunc_tests > $OUT/build.txt 2>&1
echo "build rc=$? $(( $(date +%s) - b0 )) s (configure $(( b0 - start )) s)" >> $OUT/build.txt
cp /tmp/b/.ninja_log $OUT/ninja_log.txt
left=$(( 585 - ($(date +%s) - start) ))
if [ -x /tmp/b/tests/ufunc_tests ] && [ $left -gt 20 ]; then
  t0=$(date +%s)
  OMP_NUM_THREADS=16 timeout $left /tmp/b/tests/ufunc_tests > $OUT/tests.txt 2>&1; echo "rc=$? $(( $(date +%s) - t0 )) s" >> $OUT/tests.txt
fi
tail -c 20000 $OUT/tests.txt > $OUT/tests_tail.txt 2>/dev/null
grep -E "^\[doctest\]|ERROR|FAILED|failed" $OUT/tests.txt | tail -40 > $OUT/tests_summary.txt 2>/dev/null
cd $OUT && tar -czf results.tar.gz *.txt
