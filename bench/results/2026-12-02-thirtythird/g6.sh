#!/bin/bash
# Call 3: test_sum_accuracy.cpp and test_vectorize_large.cpp (host loops over up to 2^32
# elements as references) built on the VM with their host side at -O1 and at -Og, each
# pair linked with main.cpp; run alternately with doctest's per-case durations.
start=$(date +%s)
{ nvidia-smi -L; nproc; lscpu | grep -E "Model name" | head -1; } > $OUT/gpu.txt
for r in 1 2; do
  for v in O1 Og; do
    left=$(( 560 - ($(date +%s) - start) ))
    [ $left -gt 30 ] || break 2
    t0=$(date +%s)
    echo "=== $v round $r" >> $OUT/runs.txt
    OMP_NUM_THREADS=16 timeout $left .gpu/bin/sub/t_$v --duration=true >> $OUT/runs.txt 2>&1
    echo "rc=$? $(( $(date +%s) - t0 )) s" >> $OUT/runs.txt
  done
done
grep -E "^===|^rc=|test cases:" $OUT/runs.txt
