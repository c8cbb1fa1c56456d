#!/bin/bash
# Call 2 (one H200): the lean one-block kernels with 1,024 threads (probe_whole
# new) against HEAD before (old), twice alternating; bench_reduce, bench_half and
# bench_lazy new / old alternating (built on this VM by nvcc -O3, same flags).
mkdir -p /tmp/x && tar -C /tmp/x -xJf .gpu/bin.tar.xz && cd /tmp/x/bin
nvidia-smi -L > $OUT/gpu.txt
for i in 1 2; do for v in new old; do echo "=== probe_$v"; ./probe_$v; done; done > $OUT/probe.txt 2>&1
for b in bench_reduce bench_half; do
  for i in 1 2; do for v in new old; do echo "=== ${b}_$v"; timeout 100 ./${b}_$v; done; done > $OUT/$b.txt 2>&1
done
for v in new old; do echo "=== bench_lazy_$v"; timeout 120 ./bench_lazy_$v; done > $OUT/bench_lazy.txt 2>&1
