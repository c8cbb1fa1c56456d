#!/bin/bash
# Session 16, call 2: f.at's staged route with 4 updates a thread (all loads before the
# atomics) against call 1's one a thread (bench_primitives_stage1), alternated with
# primitives_peers.py (cupyx.scatter_add) in one lease; the f.at tests and memcheck.
R=$PWD; T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
L=$OUT/log.txt
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee $L
B=.gpu/bin
OMP_NUM_THREADS=16 timeout 120 $B/ufunc_subset_tests > $OUT/tests.txt 2>&1; echo "tests rc $? at $(el) s" | tee -a $L
tail -3 $OUT/tests.txt | tee -a $L; grep -B4 -A14 "ERROR\|FAILED" $OUT/tests.txt | head -40 | tee -a $L
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $B/ufunc_subset_tests -tc="f.at*" \
  > $OUT/memcheck.txt 2>&1; echo "memcheck rc $? at $(el) s" | tee -a $L; tail -2 $OUT/memcheck.txt | tee -a $L
for r in 1 2; do
  for v in bench_primitives bench_primitives_stage1; do
    timeout 90 $B/$v > $OUT/$v-$r.txt 2>&1; echo "$v rc $? at $(el) s" | tee -a $L
    grep -iE "add.at|FAIL|differs" $OUT/$v-$r.txt | tee -a $L
  done
  [ $r = 1 ] && (cd $R/bench/peers && timeout 120 /opt/torch/.venv/bin/python3 primitives_peers.py > $OUT/primitives_peers-$r.txt 2>&1; echo "peers rc $?" | tee -a $L)
  grep -iE "scatter|index_add" $OUT/primitives_peers-$r.txt | tee -a $L
done
echo "done at $(el) s" | tee -a $L
