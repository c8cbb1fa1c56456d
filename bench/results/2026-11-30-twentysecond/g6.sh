#!/bin/bash
# Call 6 (one H200): bench_pairwise and bench_select_k, new (53a7a0d: fixed
# pairwise roles only at splits between inputs) and old (b5c9fd0) alternated:
# the fixed-role kernels must still be the ones the usual layouts run.
mkdir -p /tmp/w && tar -C /tmp/w -xJf .gpu/bin.tar.xz
B=/tmp/w/bin
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader > $OUT/gpu.txt
for b in bench_pairwise bench_pairwise_old bench_pairwise bench_pairwise_old; do echo "== $b"; timeout 100 $B/$b; done > $OUT/bench_pairwise.txt 2>&1
for b in bench_select_k bench_select_k_old; do echo "== $b"; timeout 120 $B/$b; done > $OUT/bench_select_k.txt 2>&1
cd $OUT && tar -czf results.tar.gz *.txt
