#!/bin/bash
# Session 17, call 2 (one H200): the lean random fill (probe_fill3, bench_random, random_peers),
# test_random + test_gufunc with the cp.async gufunc copy (tests, memcheck, racecheck),
# bench_gufunc variants (cp.async vs registers), random_overflow at 10^12, and issue 42's
# whole table in one lease (bench_sort, bench_primitives, bench_select_k, primitives_peers).
R=$PWD; T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
D=$OUT/r; mkdir -p $D; L=$D/log.txt
mkdir -p /tmp/gbin && tar -C /tmp/gbin -xJf $R/.gpu/bin.tar.xz; B=/tmp/gbin/bin
finish() { echo "done at $(el) s" | tee -a $L; tar -C $OUT -czf $OUT/results.tar.gz r; cp $L $OUT/log.txt; rm -rf $D; }
trap finish EXIT
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee $L
OMP_NUM_THREADS=16 timeout 150 $B/ut2 > $D/tests.txt 2>&1; echo "tests (random, gufunc) rc $? at $(el) s" | tee -a $L
tail -3 $D/tests.txt | tee -a $L; grep -B4 -A14 "ERROR\|FAILED" $D/tests.txt | head -40 | tee -a $L
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 $B/ut2 -tc="*gufunc*" > $D/memcheck.txt 2>&1
echo "memcheck gufunc rc $? at $(el) s" | tee -a $L; tail -2 $D/memcheck.txt | tee -a $L
timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 $B/ut2 -tc="*gufunc*" > $D/racecheck.txt 2>&1
echo "racecheck gufunc rc $? at $(el) s" | tee -a $L; tail -2 $D/racecheck.txt | tee -a $L
timeout 90 $B/probe_fill3 > $D/probe_fill3.txt 2>&1; echo "probe_fill3 rc $? at $(el) s" | tee -a $L; cat $D/probe_fill3.txt | tee -a $L
timeout 120 $B/bench_random > $D/bench_random.txt 2>&1; echo "bench_random rc $? at $(el) s" | tee -a $L
grep -iE "ratio|G/s| s " $D/bench_random.txt | cut -c1-110 | tee -a $L
(cd $R/bench/peers && timeout 120 /opt/torch/.venv/bin/python3 random_peers.py > $D/random_peers.txt 2>&1; echo "random peers rc $? at $(el) s" | tee -a $L; cat $D/random_peers.txt | tee -a $L)
timeout 60 $B/example_random_overflow > $D/random_overflow.txt 2>&1; echo "random_overflow rc $? at $(el) s" | tee -a $L; cat $D/random_overflow.txt | tee -a $L
for v in bench_gufunc ga_128_8 ga_64_8 gr_128_4 gr_128_8 ga_256_8 bench_gufunc; do
  timeout 60 $B/$v > $D/$v.txt 2>&1; echo "$v rc $? at $(el) s: $(grep -E 'ratio' $D/$v.txt | grep -E 'dot|solve|rows' | sed -E 's/ +/ /g' | cut -c1-70 | tr '\n' '|')" | tee -a $L
done
for b in bench_sort bench_primitives bench_select_k; do
  timeout 150 $B/$b > $D/$b.txt 2>&1; echo "$b rc $? at $(el) s" | tee -a $L
  grep -E "ratio|T/s" $D/$b.txt | grep -E "PASS|FAIL|speed" | sed -E 's/ +/ /g' | cut -c1-100 | tee -a $L
done
(cd $R/bench/peers && timeout 150 /opt/torch/.venv/bin/python3 primitives_peers.py > $D/primitives_peers.txt 2>&1; echo "primitives peers rc $? at $(el) s" | tee -a $L; cat $D/primitives_peers.txt | tee -a $L)
grep "add.at" $D/bench_primitives.txt | tee -a $L
