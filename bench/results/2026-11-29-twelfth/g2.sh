#!/bin/bash
export PATH=/usr/local/cuda/bin:$PATH
R=$PWD
cfg() { cmake -S $R -B $1 -G Ninja -DUFUNC_BACKEND=cuda -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_BUILD_TYPE=Release \
  -DUFUNC_DOCTEST_INCLUDE_DIR=$R/.deps/doctest -DUFUNC_BUILD_BENCH=ON "-DCMAKE_CUDA_FLAGS=$2" > $1.cfg.log 2>&1; ninja -C $1 bench_gufunc > $1.build.log 2>&1 || tail -20 $1.build.log; }
t0=$(date +%s)
cfg /tmp/u8 "" & cfg /tmp/u4 "-DUFUNC_GUFUNC_UNROLL=4" & cfg /tmp/u16 "-DUFUNC_GUFUNC_UNROLL=16" & cfg /tmp/b64u16 "-DUFUNC_GUFUNC_BLOCK=64 -DUFUNC_GUFUNC_UNROLL=16" & cfg /tmp/none "-DUFUNC_GUFUNC_SMEM=0" & wait
echo "build $(( $(date +%s) - t0 )) s"
for r in 1 2 3; do
  for v in u8 u4 u16 b64u16 none; do echo "== $v round $r"; /tmp/$v/bench/bench_gufunc 2>&1 | grep -E "ms|ratio" | grep -v "peak\|copy /"; done
done
