#!/bin/bash
# Session 15, call 5: fill_uniform's launch shape (issue 41: >= 0.85 of a device copy).
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name --format=csv,noheader
for pass in 1 2; do
  vs="pfill0 pfill1 pfill2 pfill4"; [ $pass = 2 ] && vs="pfill4 pfill2 pfill1 pfill0"
  for v in $vs; do echo "== $v pass $pass at $(el) s"; timeout 60 .gpu/bin/$v 2>&1 | tee -a $OUT/probe.txt; done
done
