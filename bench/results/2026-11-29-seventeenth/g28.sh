#!/bin/bash
# Session 17, call 4 (one H200): gufunc with __launch_bounds__(B, 1024 / B) (tests, memcheck,
# racecheck at B = 128; tests at B = 64; bench_gufunc at both, alternated); where add.at's
# time goes (probe_at, then cupyx.scatter_add / torch index_add_); host_peers.py with numexpr
# and Numba beside bench_host at 16 threads (issue 37's 16-core row).
R=$PWD; T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
D=$OUT/r; mkdir -p $D; L=$D/log.txt
mkdir -p /tmp/gbin && tar -C /tmp/gbin -xJf $R/.gpu/bin.tar.xz; B=/tmp/gbin/bin
finish() { echo "done at $(el) s" | tee -a $L; tar -C $OUT -czf $OUT/results.tar.gz r; cp $L $OUT/log.txt; rm -rf $D; }
trap finish EXIT
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee $L; uptime | tee -a $L
OMP_NUM_THREADS=16 timeout 150 $B/ut4 > $D/tests.txt 2>&1; echo "tests B=128 (gufunc, ufunc_methods) rc $? at $(el) s" | tee -a $L
tail -3 $D/tests.txt | tee -a $L; grep -B4 -A14 "ERROR\|FAILED" $D/tests.txt | head -40 | tee -a $L
OMP_NUM_THREADS=16 timeout 150 $B/ut4b > $D/tests64.txt 2>&1; echo "tests B=64 (gufunc) rc $? at $(el) s" | tee -a $L
tail -3 $D/tests64.txt | tee -a $L; grep -B4 -A14 "ERROR\|FAILED" $D/tests64.txt | head -40 | tee -a $L
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 $B/ut4 -tc="*gufunc*,f.at*" > $D/memcheck.txt 2>&1
echo "memcheck rc $? at $(el) s" | tee -a $L; tail -2 $D/memcheck.txt | tee -a $L
timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 $B/ut4 -tc="*gufunc*" > $D/racecheck.txt 2>&1
echo "racecheck rc $? at $(el) s" | tee -a $L; tail -2 $D/racecheck.txt | tee -a $L
for r in 1 2; do for v in bench_gufunc bench_gufunc_64; do
  timeout 60 $B/$v > $D/$v-$r.txt 2>&1; echo "$v $r rc $? at $(el) s: $(grep -E 'ratio' $D/$v-$r.txt | grep -E 'dot|solve|rows' | sed -E 's/ +/ /g' | cut -c1-70 | tr '\n' '|')" | tee -a $L
done; done
timeout 90 $B/probe_at > $D/probe_at.txt 2>&1; echo "probe_at rc $? at $(el) s" | tee -a $L; cat $D/probe_at.txt | tee -a $L
timeout 90 /opt/torch/.venv/bin/python3 $R/bench/results/2026-11-29-seventeenth/scatter_peer.py > $D/scatter.txt 2>&1; echo "scatter peers rc $?" | tee -a $L; cat $D/scatter.txt | tee -a $L
# host, 16 threads, with numexpr and Numba from the carried site-packages (as session 13)
python3 -c "import numexpr, numba" 2>/dev/null || { mkdir -p /tmp/x && xz -dc $R/.whl/site312.tar.xz | tar -x -C /tmp/x && export PYTHONPATH=/tmp/x/site312; }
python3 -c "import numpy, numexpr, numba; print('numpy', numpy.__version__, 'numexpr', numexpr.__version__, 'numba', numba.__version__)" 2>&1 | tee -a $L
OMP_NUM_THREADS=16 timeout 150 $B/hm_bench --csv $D/host16.csv > $D/host16.txt 2>&1; echo "bench_host t=16 rc $? at $(el) s" | tee -a $L
(cd $R/bench/peers && OMP_NUM_THREADS=16 NUMEXPR_NUM_THREADS=16 NUMBA_NUM_THREADS=16 timeout 150 python3 host_peers.py --csv $D/peers16.csv > $D/peers16.txt 2>&1; echo "host_peers t=16 rc $? at $(el) s" | tee -a $L; grep -E "gaussian_pdf +67108864|sum +67108864|checked" $D/peers16.txt | tee -a $L)
grep -E "^(sum|gaussian_pdf),67108864" $D/host16.csv | tee -a $L
