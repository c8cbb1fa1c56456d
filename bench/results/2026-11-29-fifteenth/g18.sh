#!/bin/bash
# Session 15, call 2: computed sources' tuning: elementwise flat U (EU), row-reduction U (RU),
# whole waves of resident blocks (W); probe_u4b8 is HEAD's code.
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name --format=csv,noheader
for pass in 1 2; do
  vs="u4b8 e1r2w1 e2r2w1 e1r1w1 e1r2w2 e4r4w1"; [ $pass = 2 ] && vs="e4r4w1 e1r2w2 e1r1w1 e2r2w1 e1r2w1 u4b8"
  for v in $vs; do
    echo "== $v pass $pass at $(el) s"; timeout 60 .gpu/bin/probe_$v 2>&1 | grep -E "check|U=" | tee -a $OUT/probe.txt
  done
done
