#!/bin/bash
# Session 15, call 3: row-reduction U (RU) and waves of resident blocks (W) for computed sources.
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name --format=csv,noheader
for pass in 1 2; do
  vs="u4b8 r2w8 r2w8m12 r2w8m16 r2w2m16"; [ $pass = 2 ] && vs="r2w2m16 r2w8m16 r2w8m12 r2w8 u4b8"
  for v in $vs; do
    echo "== $v pass $pass at $(el) s"; timeout 60 .gpu/bin/probe_$v 2>&1 | grep -E "check|U=" | tee -a $OUT/probe.txt
  done
done
