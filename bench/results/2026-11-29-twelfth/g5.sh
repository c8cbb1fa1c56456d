#!/bin/bash
# The GPU suite: configure + `ninja -j16 ufunc_tests` timed (issue 38: <= 300 s), then run.
export PATH=/usr/local/cuda/bin:$PATH
R=$PWD
(lscpu | grep "Model name"; nproc; nvidia-smi --query-gpu=name,memory.total --format=csv,noheader) | tee $OUT/machine.txt
t0=$(date +%s)
cmake -S $R -B /tmp/g -G Ninja -DUFUNC_BACKEND=cuda -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_BUILD_TYPE=Release \
  -DUFUNC_DOCTEST_INCLUDE_DIR=$R/.deps/doctest > $OUT/cfg.log 2>&1
t1=$(date +%s)
ninja -C /tmp/g -j16 ufunc_tests > $OUT/build.log 2>&1; rc=$?
t2=$(date +%s)
echo "configure $((t1 - t0)) s, ninja -j16 ufunc_tests $((t2 - t1)) s, rc $rc" | tee $OUT/times.txt
cp /tmp/g/.ninja_log $OUT/ninja_log.txt
awk 'NR>1{d=($2-$1)/1000; n=split($4,a,"/"); s+=d; print int(d), a[n]} END{print int(s), "SUM"}' /tmp/g/.ninja_log | sort -rn | head -12 | tee -a $OUT/times.txt
left=$((570 - (t2 - t0)))
[ $rc -eq 0 ] && [ $left -gt 60 ] && OMP_NUM_THREADS=16 timeout $left /tmp/g/tests/ufunc_tests > $OUT/tests.txt 2>&1; echo "tests rc $?" >> $OUT/times.txt
tail -4 $OUT/tests.txt; grep -B3 -A12 "ERROR\|FAILED" $OUT/tests.txt | head -60
cat $OUT/times.txt
