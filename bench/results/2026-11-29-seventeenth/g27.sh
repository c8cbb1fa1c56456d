#!/bin/bash
# Session 17, call 3 (one H200): gufunc with cp.async for large blocks and U = 4 for the
# register copy (tests, memcheck, racecheck, bench_gufunc twice); f.at's device-side commit
# (tests, memcheck, bench_primitives alternated with cupyx.scatter_add); the host backend
# on the 16-core Xeon (bench_host full at 16 and 1 threads, host_peers.py at 16 and 1).
R=$PWD; T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
D=$OUT/r; mkdir -p $D; L=$D/log.txt
mkdir -p /tmp/gbin && tar -C /tmp/gbin -xJf $R/.gpu/bin.tar.xz; B=/tmp/gbin/bin
finish() { echo "done at $(el) s" | tee -a $L; tar -C $OUT -czf $OUT/results.tar.gz r; cp $L $OUT/log.txt; rm -rf $D; }
trap finish EXIT
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee $L; uptime | tee -a $L
OMP_NUM_THREADS=16 timeout 150 $B/ut3 > $D/tests.txt 2>&1; echo "tests (gufunc, ufunc_methods) rc $? at $(el) s" | tee -a $L
tail -3 $D/tests.txt | tee -a $L; grep -B4 -A14 "ERROR\|FAILED" $D/tests.txt | head -40 | tee -a $L
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 $B/ut3 -tc="*gufunc*,f.at*" > $D/memcheck.txt 2>&1
echo "memcheck rc $? at $(el) s" | tee -a $L; tail -2 $D/memcheck.txt | tee -a $L
timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 $B/ut3 -tc="*gufunc*" > $D/racecheck.txt 2>&1
echo "racecheck rc $? at $(el) s" | tee -a $L; tail -2 $D/racecheck.txt | tee -a $L
for r in 1 2; do
  timeout 60 $B/bench_gufunc > $D/bench_gufunc-$r.txt 2>&1; echo "bench_gufunc $r rc $? at $(el) s: $(grep -E 'ratio' $D/bench_gufunc-$r.txt | grep -E 'dot|solve|rows' | sed -E 's/ +/ /g' | cut -c1-70 | tr '\n' '|')" | tee -a $L
  timeout 60 $B/bench_primitives > $D/bench_primitives-$r.txt 2>&1; echo "bench_primitives $r rc $?: $(grep 'add.at' $D/bench_primitives-$r.txt)" | tee -a $L
  (cd $R/bench/peers && timeout 90 /opt/torch/.venv/bin/python3 $R/bench/results/2026-11-29-seventeenth/scatter_peer.py > $D/scatter-$r.txt 2>&1; echo "scatter peers $r rc $?" | tee -a $L; cat $D/scatter-$r.txt | tee -a $L)
done
timeout 60 $B/bench_primitives > $D/bench_primitives-3.txt 2>&1; echo "bench_primitives 3 rc $?: $(grep 'add.at' $D/bench_primitives-3.txt)" | tee -a $L
# host backend, 16-core Xeon
for t in 16 1; do
  OMP_NUM_THREADS=$t timeout 150 $B/hm_bench --csv $D/host$t.csv > $D/host$t.txt 2>&1; echo "bench_host t=$t rc $? at $(el) s" | tee -a $L
  (cd $R/bench/peers && OMP_NUM_THREADS=$t OPENBLAS_NUM_THREADS=$t NUMEXPR_NUM_THREADS=$t NUMBA_NUM_THREADS=$t timeout 150 /opt/torch/.venv/bin/python3 host_peers.py --csv $D/peers$t.csv > $D/peers$t.txt 2>&1; echo "host_peers t=$t rc $? at $(el) s" | tee -a $L)
done
