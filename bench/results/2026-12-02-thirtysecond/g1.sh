#!/bin/bash
start=$(date +%s)
{ nvidia-smi -L; nproc; lscpu | grep -E "Model name" | head -1; } > $OUT/gpu.txt
cmake -S . -B /tmp/b -G Ninja -DUFUNC_BACKEND=cuda -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_BUILD_TYPE=Release \
  -DUFUNC_BUILD_TESTS=ON -DUFUNC_BUILD_BENCH=OFF -DUFUNC_BUILD_EXAMPLES=OFF \
  -DCMAKE_CUDA_COMPILER_LAUNCHER=$PWD/.gpu/nvwrap.sh \
  -DUFUNC_DOCTEST_INCLUDE_DIR=$PWD/.gpu/doctest > $OUT/configure.txt 2>&1
b0=$(date +%s)
timeout 540 ninja -C /tmp/b -j16 ufunc_tests > $OUT/build.txt 2>&1
echo "build rc=$? $(( $(date +%s) - b0 )) s (configure $(( b0 - start )) s)" >> $OUT/build.txt
cp /tmp/b/.ninja_log $OUT/ninja_log.txt
cd $OUT/tu && tar czf ../tu.tgz . && cd .. && rm -rf tu
tail -3 $OUT/build.txt; ls -la $OUT
