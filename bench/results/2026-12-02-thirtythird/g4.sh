#!/bin/bash
# Call 1: the GPU suite built with the tests' host side at -Og (per-unit nvcc phases
# through nvtime.sh), run at 16 threads; then compute-sanitizer memcheck on the cases
# not yet run on a GPU (reduceat's floating types, the rank-8 reductions), time allowing.
start=$(date +%s)
{ nvidia-smi -L; nproc; lscpu | grep -E "Model name" | head -1; } > $OUT/gpu.txt
cmake -S . -B /tmp/b -G Ninja -DUFUNC_BACKEND=cuda -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_BUILD_TYPE=Release \
  -DUFUNC_BUILD_TESTS=ON -DUFUNC_BUILD_BENCH=OFF -DUFUNC_BUILD_EXAMPLES=OFF \
  -DCMAKE_CUDA_COMPILER_LAUNCHER=$PWD/.gpu/nvtime.sh \
  -DUFUNC_DOCTEST_INCLUDE_DIR=$PWD/.gpu/doctest > $OUT/configure.txt 2>&1
b0=$(date +%s)
timeout 420 ninja -C /tmp/b -j16 ufunc_tests > $OUT/build.txt 2>&1
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
left=$(( 585 - ($(date +%s) - start) ))
if [ -x /tmp/b/tests/ufunc_tests ] && [ $left -gt 20 ]; then
  t0=$(date +%s)
  OMP_NUM_THREADS=16 timeout $left compute-sanitizer --tool memcheck --error-exitcode 1 /tmp/b/tests/ufunc_tests \
    -tc="f.reduceat*floating*,reduce: any set of axes*" > $OUT/memcheck.txt 2>&1
  echo "rc=$? $(( $(date +%s) - t0 )) s" >> $OUT/memcheck.txt
fi
tail -2 $OUT/build.txt; cat $OUT/tests_summary.txt 2>/dev/null; tail -5 $OUT/memcheck.txt 2>/dev/null
