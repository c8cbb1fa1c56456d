#!/bin/bash
# Call 2: the benchmark programs whose kernels the 64-bit offsets loop (841f3c4) touched,
# built on the 2-core VM against bfcaaa8's headers (old) and this session's (new), run
# alternately on one GPU: each program old then new, two rounds, as time allows.
start=$(date +%s)
{ nvidia-smi -L; nproc; lscpu | grep -E "Model name" | head -1; } > $OUT/gpu.txt
for r in 1 2; do
  for p in bench_reduce bench_lazy bench_core bench_primitives; do
    for v in old new; do
      left=$(( 560 - ($(date +%s) - start) ))
      [ $left -gt 30 ] || break 3
      t0=$(date +%s)
      echo "=== $p $v round $r" >> $OUT/$p.txt
      timeout $(( left < 120 ? left : 120 )) .gpu/bin/$v/$p >> $OUT/$p.txt 2>&1
      echo "rc=$? $(( $(date +%s) - t0 )) s" >> $OUT/$p.txt
    done
  done
done
grep -h "^===\|^rc=" $OUT/bench_*.txt
