#!/bin/bash
# (scatter_peer.py: session 17's, the same file; a verbatim copy ran here, since removed)
# Call 3 (one H200): f.at's new device route (a updated in place with its indices
# checked, a copy kept to put back; the flag a mapped page-locked host word, no fill
# and no copy enqueued for it). test_ufunc_methods (both routes, bad indices, indices
# in a's memory) at 16 and 2 threads, memcheck over f.at; probe_at3 built at the new
# library (add.at against the bare kernels and the old call's steps) alternated with
# cupyx.scatter_add; bench_primitives once. Binaries built on the VM (.gpu/).
R=$PWD; T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
L=$OUT/log.txt
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee $L
B=.gpu
for th in 16 2; do
  OMP_NUM_THREADS=$th timeout 120 $B/ufunc_subset_tests > $OUT/tests$th.txt 2>&1; echo "tests ($th threads) rc $? at $(el) s" | tee -a $L
  tail -3 $OUT/tests$th.txt | tee -a $L; grep -B4 -A14 "ERROR\|FAILED" $OUT/tests$th.txt | head -40 | tee -a $L
done
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $B/ufunc_subset_tests -tc="f.at*" \
  > $OUT/memcheck.txt 2>&1; echo "memcheck rc $? at $(el) s" | tee -a $L; tail -4 $OUT/memcheck.txt | tee -a $L
PY=/opt/torch/.venv/bin/python3; [ -x $PY ] || PY=python3
for r in 1 2; do
  timeout 100 $B/probe_at3 > $OUT/probe-$r.txt 2>&1; echo "probe_at3 rc $? at $(el) s" | tee -a $L
  grep -E "add.at|largest" $OUT/probe-$r.txt | tee -a $L
  timeout 90 $PY $R/bench/results/2026-11-29-seventeenth/scatter_peer.py 2>&1 | tee -a $L
done
timeout 120 $B/bench_primitives > $OUT/bench_primitives.txt 2>&1; echo "bench_primitives rc $? at $(el) s" | tee -a $L
grep -iE "add.at|updates|FAIL|differs|ratio" $OUT/bench_primitives.txt | tee -a $L
echo "done at $(el) s" | tee -a $L
