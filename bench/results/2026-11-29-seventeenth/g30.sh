#!/bin/bash
# Session 17, call 6 (one H200): memcheck and racecheck over test_gufunc at the kept B = 64.
R=$PWD; mkdir -p /tmp/gbin && tar -C /tmp/gbin -xJf $R/.gpu/bin.tar.xz; B=/tmp/gbin/bin
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/log.txt
OMP_NUM_THREADS=16 timeout 100 $B/ut4b 2>&1 | tail -3 | tee -a $OUT/log.txt
for tool in memcheck racecheck; do
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 $B/ut4b -tc="*gufunc*" > $OUT/$tool.txt 2>&1
  echo "$tool rc $?" | tee -a $OUT/log.txt; tail -2 $OUT/$tool.txt | tee -a $OUT/log.txt
done
