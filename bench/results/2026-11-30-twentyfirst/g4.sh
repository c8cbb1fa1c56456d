#!/bin/bash
# Call 4 (two H200s): the one-process sharded figures (bench_multi_gpu) with this
# session's engine (new) and HEAD before it (old), alternated.
mkdir -p /tmp/w && tar -C /tmp/w -xJf .gpu/bin.tar.xz
B=/tmp/w/bin
for b in bench_multi_gpu bench_multi_gpu_old bench_multi_gpu bench_multi_gpu_old; do
  echo "== $b"; timeout 120 $B/$b 2>&1 | grep -iE "ratio|sum|pdf|matmul|device"
done > $OUT/multi_gpu.txt 2>&1
