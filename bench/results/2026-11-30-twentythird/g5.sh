#!/bin/bash
# Call 5 (two H200s): the sharded tests (test_sharded*, test_streaming_arg,
# test_array; built here at 1ab8b70) on both GPUs, where the partial
# folds run flat_call; probe_sum.cu new / old alternated; bench_multi_gpu.
mkdir -p /tmp/w && tar -C /tmp/w -xJf .gpu/bin.tar.xz && cd /tmp/w/bin
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader > $OUT/gpu.txt
OMP_NUM_THREADS=16 timeout 300 ./subset_sharded > $OUT/tests.txt 2>&1; echo "rc=$?" >> $OUT/tests.txt
for i in 1 2; do echo "== new"; ./probe_sum_new; echo "== old"; ./probe_sum_old; done > $OUT/probe_sum.txt 2>&1
timeout 120 ./bench_multi_gpu > $OUT/bench_multi_gpu.txt 2>&1
tail -4 $OUT/tests.txt; cat $OUT/probe_sum.txt; grep -E "ratio|FAIL|PASS" $OUT/bench_multi_gpu.txt | head -20
