#!/bin/bash
# Session 17, call 1 (one H200): f.at's final form (cast_layout/may_overlap) tested and
# memchecked; issue 42's whole table in one lease (bench_sort, bench_primitives,
# bench_select_k, primitives_peers.py); bench_gufunc's tuning variants; the fill store
# probe; the host matmul on the Xeon (AVX-512 clone, tests at 1/2/16 threads, the
# matmul-split branch against main, np.matmul).
R=$PWD; T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
L=$OUT/log.txt; mkdir -p /tmp/gbin && tar -C /tmp/gbin -xJf $R/.gpu/bin.tar.xz; B=/tmp/gbin/bin
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee $L
lscpu | grep -E "Model name|^CPU\(s\)|avx512f" | cut -c1-120 | tee -a $L
OMP_NUM_THREADS=16 timeout 120 $B/ut_methods > $OUT/tests.txt 2>&1; echo "f.at tests rc $? at $(el) s" | tee -a $L
tail -3 $OUT/tests.txt | tee -a $L; grep -B4 -A14 "ERROR\|FAILED" $OUT/tests.txt | head -40 | tee -a $L
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $B/ut_methods -tc="f.at*" > $OUT/memcheck.txt 2>&1
echo "memcheck rc $? at $(el) s" | tee -a $L; tail -2 $OUT/memcheck.txt | tee -a $L
for b in bench_sort bench_primitives bench_select_k; do
  timeout 150 $B/$b > $OUT/$b.txt 2>&1; echo "$b rc $? at $(el) s" | tee -a $L
done
(cd $R/bench/peers && timeout 150 /opt/torch/.venv/bin/python3 primitives_peers.py > $OUT/primitives_peers.txt 2>&1; echo "peers rc $? at $(el) s" | tee -a $L)
timeout 60 $B/bench_primitives > $OUT/bench_primitives-2.txt 2>&1; echo "bench_primitives 2 rc $? at $(el) s" | tee -a $L
for v in gv_128_8 gv_64_8 gv_64_16 gv_128_16 gv_32_8 gv_128_4 gv_128_8; do
  timeout 60 $B/$v > $OUT/$v.txt 2>&1; echo "$v rc $? at $(el) s: $(grep -iE 'dot|solve' $OUT/$v.txt | grep -iE 'copy|ratio|of' | head -4 | tr '\n' '|' | cut -c1-400)" | tee -a $L
done
timeout 90 $B/probe_fill2 > $OUT/probe_fill2.txt 2>&1; echo "probe_fill2 rc $? at $(el) s" | tee -a $L; cat $OUT/probe_fill2.txt | tee -a $L
timeout 120 $B/probe_moments > $OUT/probe_moments.txt 2>&1; echo "probe_moments rc $? at $(el) s" | tee -a $L; cat $OUT/probe_moments.txt | tee -a $L
# host matmul (Xeon)
for t in 1 2 16; do OMP_NUM_THREADS=$t timeout 60 $B/hm_tests > $OUT/hm_tests_$t.txt 2>&1; echo "hm_tests $t rc $? $(tail -2 $OUT/hm_tests_$t.txt | head -1)" | tee -a $L; done
UFUNC_HOST_SIMD=avx2 OMP_NUM_THREADS=16 timeout 60 $B/hm_tests > $OUT/hm_tests_avx2.txt 2>&1; echo "hm_tests avx2 rc $?" | tee -a $L
OMP_NUM_THREADS=16 timeout 60 $B/hs_tests > $OUT/hs_tests_16.txt 2>&1; echo "hs_tests 16 rc $? $(tail -2 $OUT/hs_tests_16.txt | head -1)" | tee -a $L
for t in 16 1; do for r in 1 2; do
  for v in hm_bench hs_bench; do OMP_NUM_THREADS=$t timeout 90 $B/$v --max 10 > $OUT/$v-$t-$r.txt 2>&1; echo "$v t=$t r=$r rc $?: $(grep '^matmul' $OUT/$v-$t-$r.txt | tr -s ' ' | tr '\n' '|')" | tee -a $L; done
done; done
UFUNC_HOST_SIMD=avx2 OMP_NUM_THREADS=16 timeout 90 $B/hm_bench --max 10 > $OUT/hm_bench-avx2.txt 2>&1; echo "hm_bench avx2 t=16: $(grep '^matmul' $OUT/hm_bench-avx2.txt | tr -s ' ' | tr '\n' '|')" | tee -a $L
for t in 16 1; do OMP_NUM_THREADS=$t OPENBLAS_NUM_THREADS=$t timeout 90 /opt/torch/.venv/bin/python3 - <<'PY' 2>&1 | tee -a $L
import numpy as np, time, os
for n in (256, 1024, 2048):
    a = np.random.rand(n, n).astype(np.float32); b = np.random.rand(n, n).astype(np.float32); c = np.empty_like(a)
    for _ in range(3): np.matmul(a, b, out=c)
    ts = []
    for _ in range(7):
        t0 = time.perf_counter(); np.matmul(a, b, out=c); ts.append(time.perf_counter() - t0)
    m = sorted(ts)[3]
    print("numpy matmul t=%s n=%d %.1f us %.1f GFLOP/s" % (os.environ["OMP_NUM_THREADS"], n, m * 1e6, 2 * n**3 / m / 1e9))
PY
done
echo "done at $(el) s" | tee -a $L
