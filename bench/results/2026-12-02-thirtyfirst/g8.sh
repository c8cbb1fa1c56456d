#!/bin/bash
# Call 8 (one H200): after the review's commit 8d2e75a (a rename, the host target's
# unused host_flag removed): test_ufunc_methods at 16 and 2 threads, memcheck over
# f.at, bench_primitives, and probe_at4 alternated twice with cupyx.scatter_add.
# Binaries built on the VM at 8d2e75a (.gpu/).
R=$PWD; T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
L=$OUT/log.txt
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee $L
for th in 16 2; do
  OMP_NUM_THREADS=$th timeout 120 .gpu/ufunc_subset_tests > $OUT/tests$th.txt 2>&1; echo "tests ($th threads) rc $? at $(el) s" | tee -a $L
  tail -3 $OUT/tests$th.txt | tee -a $L; grep -B4 -A14 "ERROR\|FAILED" $OUT/tests$th.txt | head -40 | tee -a $L
done
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 .gpu/ufunc_subset_tests -tc="f.at*" \
  > $OUT/memcheck.txt 2>&1; echo "memcheck rc $? at $(el) s" | tee -a $L; tail -4 $OUT/memcheck.txt | tee -a $L
timeout 120 .gpu/bench_primitives > $OUT/bench_primitives.txt 2>&1; echo "bench_primitives rc $? at $(el) s" | tee -a $L
grep -iE "add.at|updates|FAIL|differs|ratio" $OUT/bench_primitives.txt | tee -a $L
PY=/opt/torch/.venv/bin/python3; [ -x $PY ] || PY=python3
for r in 1 2; do
  timeout 60 .gpu/probe_at4 2>&1 | grep -E "add.at|largest" | tee -a $L
  timeout 90 $PY $R/bench/results/2026-11-29-seventeenth/scatter_peer.py 2>&1 | tee -a $L
done
echo "done at $(el) s" | tee -a $L
