#!/bin/bash
# Session 15, call 7: the whole GPU unit-test program (with the sharded engine's instantiation
# cuts merged) built with 16 jobs (issue 38: <= 5 minutes) and run if it finishes in time.
export PATH=/usr/local/cuda/bin:$PATH
R=$PWD; T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
L=$OUT/log.txt
nvidia-smi --query-gpu=name --format=csv,noheader > $L; git log --oneline -1 >> $L 2>/dev/null; nproc >> $L
cmake -S $R -B /tmp/n -G Ninja -DUFUNC_BACKEND=cuda -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_BUILD_TYPE=Release \
  -DUFUNC_DOCTEST_INCLUDE_DIR=$R/.deps/doctest > /tmp/cfg.log 2>&1 || tail /tmp/cfg.log >> $L
echo "configured at $(el) s" >> $L
timeout 480 ninja -C /tmp/n -j16 ufunc_tests > /tmp/build.log 2>&1; rc=$?; echo "build rc $rc at $(el) s" >> $L
grep -B2 -A12 "error" /tmp/build.log | head -30 >> $L
tail -1 /tmp/build.log >> $L
awk 'NR>1{d=($2-$1)/1000; n=split($4,a,"/"); print int(d), a[n]}' /tmp/n/.ninja_log | sort -rn | head -14 >> $L
awk 'NR>1{d=($2-$1)/1000; s+=d} END{print "sum of unit times", int(s), "s"}' /tmp/n/.ninja_log >> $L
cp /tmp/n/.ninja_log $OUT/ninja_log.txt
if [ $rc -eq 0 ]; then
  left=$((580 - $(el)))
  OMP_NUM_THREADS=16 timeout $left /tmp/n/tests/ufunc_tests > /tmp/tests.txt 2>&1; echo "tests rc $? at $(el) s" >> $L
  tail -3 /tmp/tests.txt >> $L; grep -B4 -A14 "ERROR\|FAILED" /tmp/tests.txt | head -60 >> $L
  cp /tmp/tests.txt $OUT/
fi
cat $L
