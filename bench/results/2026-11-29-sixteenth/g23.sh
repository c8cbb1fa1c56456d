#!/bin/bash
# Session 16, call 1: f.at's staging-copy route on the GPU (issue 42). The unit tests of
# test_ufunc_methods.cpp (both device routes, bad indices) and memcheck over them; then
# bench_primitives (add.at 2^26 indices into 2^20 bins) and primitives_peers.py
# (cupyx.scatter_add, torch.index_add_) alternated in one lease. Binaries built on the VM.
R=$PWD; T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
L=$OUT/log.txt
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee $L
B=.gpu/bin
OMP_NUM_THREADS=16 timeout 120 $B/ufunc_subset_tests > $OUT/tests.txt 2>&1; echo "tests rc $? at $(el) s" | tee -a $L
tail -3 $OUT/tests.txt | tee -a $L; grep -B4 -A14 "ERROR\|FAILED" $OUT/tests.txt | head -40 | tee -a $L
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $B/ufunc_subset_tests -tc="f.at*" \
  > $OUT/memcheck.txt 2>&1; echo "memcheck rc $? at $(el) s" | tee -a $L; tail -4 $OUT/memcheck.txt | tee -a $L
for r in 1 2 3; do
  timeout 90 $B/bench_primitives > $OUT/bench_primitives-$r.txt 2>&1; echo "bench_primitives rc $? at $(el) s" | tee -a $L
  grep -iE "add.at|updates|FAIL|differs" $OUT/bench_primitives-$r.txt | tee -a $L
  (cd $R/bench/peers && timeout 120 /opt/torch/.venv/bin/python3 primitives_peers.py > $OUT/primitives_peers-$r.txt 2>&1; echo "peers rc $?" | tee -a $L)
  grep -iE "scatter|index_add" $OUT/primitives_peers-$r.txt | tee -a $L
done
echo "done at $(el) s" | tee -a $L
