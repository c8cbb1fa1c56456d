#!/bin/bash
# Call 7 (one H200, 16 cores): the whole GPU suite built from scratch with 16 jobs at
# this session's code (the f.at change), then run at OMP_NUM_THREADS=16 with the time
# left (issue 38's build figure on today's host; the suite at the landing code).
start=$(date +%s)
{ nvidia-smi -L; nproc; lscpu | grep -E "Model name|MHz" | head -3; git log --oneline -1; } > $OUT/gpu.txt
cmake -S . -B /tmp/b -G Ninja -DUFUNC_BACKEND=cuda -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_BUILD_TYPE=Release \
  -DUFUNC_BUILD_TESTS=ON -DUFUNC_BUILD_BENCH=OFF -DUFUNC_BUILD_EXAMPLES=OFF \
  -DUFUNC_DOCTEST_INCLUDE_DIR=$PWD/.gpu/doctest > $OUT/configure.txt 2>&1
b0=$(date +%s)
timeout 440 ninja -C /tmp/b -j16 ufunc_tests > $OUT/build.txt 2>&1
echo "build rc=$? $(( $(date +%s) - b0 )) s (configure $(( b0 - start )) s)" >> $OUT/build.txt
cp /tmp/b/.ninja_log $OUT/ninja_log.txt
left=$(( 585 - ($(date +%s) - start) ))
if [ -x /tmp/b/tests/ufunc_tests ] && [ $left -gt 20 ]; then
  t0=$(date +%s)
  OMP_NUM_THREADS=16 timeout $left /tmp/b/tests/ufunc_tests > /tmp/tests.txt 2>&1; echo "rc=$? $(( $(date +%s) - t0 )) s" >> /tmp/tests.txt
  tail -c 20000 /tmp/tests.txt > $OUT/tests_tail.txt
  grep -E "^\[doctest\]|ERROR|FAILED|failed|^rc=" /tmp/tests.txt | tail -40 > $OUT/tests_summary.txt
fi
tail -5 $OUT/build.txt; cat $OUT/tests_summary.txt 2>/dev/null
