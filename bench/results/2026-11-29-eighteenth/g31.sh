#!/bin/bash
# Session 18, call 3 (one H200): whole sums in 16-byte branch-free packs (one and
# several inputs) and the row / argmax trees: the subset tests (sum accuracy incl.
# 2^32 + 2^20 + 3 floats, chunked packs with tails; half reductions; lazy device;
# reduce), memcheck over the chunked case, then bench_half, bench_lazy and
# bench_reduce built three ways (old = HEAD 16b7ed4, p = packs, t = packs + trees),
# interleaved old, p, t, then t, p, old.
R=$PWD; T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
L=$OUT/log.txt; mkdir -p /tmp/gbin && tar -C /tmp/gbin -xJf $R/.gpu/bin.tar.xz; B=/tmp/gbin/bin
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee $L
OMP_NUM_THREADS=16 timeout 200 $B/ut_t > $OUT/tests.txt 2>&1; echo "tests (t) rc $? at $(el) s" | tee -a $L
tail -3 $OUT/tests.txt | tee -a $L; grep -B4 -A14 "ERROR\|FAILED" $OUT/tests.txt | head -60 | tee -a $L
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 $B/ut_t -tc="whole reductions of more items*" > $OUT/memcheck.txt 2>&1
echo "memcheck rc $? at $(el) s" | tee -a $L; tail -2 $OUT/memcheck.txt | tee -a $L
for round in 1 2; do
  if [ $round = 1 ]; then order="old p t"; else order="t p old"; fi
  for v in $order; do for b in bench_half bench_lazy bench_reduce; do
    timeout 120 $B/${v}_$b > $OUT/${v}_$b-$round.txt 2>&1
    echo "$v $b round $round rc $? at $(el) s" | tee -a $L
    grep -E "PASS|FAIL|CHECK" $OUT/${v}_$b-$round.txt | grep -v "^summary" | cut -c1-150 | tee -a $L
  done; done
done
cd $OUT && tar -czf results.tar.gz *.txt && rm -f *-[12].txt
