#!/bin/bash
# Call 6 (one H200): bench_tensor_core with its targets reported (targets.csv rows
# for the public call against cuBLAS), built on this VM; its rows join call 5's
# targets.csv in bench/results/2026-11-30-h200.
mkdir -p /tmp/x && tar -C /tmp/x -xJf .gpu/bin.tar.xz && cd /tmp/x/bin
nvidia-smi -L > $OUT/gpu.txt
BENCH_TARGETS_CSV=$OUT/targets_tc.csv timeout 200 ./bench_tensor_core > $OUT/bench_tensor_core.log 2>&1; echo "rc=$?" >> $OUT/bench_tensor_core.log
