#!/bin/bash
# Call 1 (one H200): session 28's owed validation (a703992's keys, 8dbe8a2's test)
# and this session's per-stream temporary (stream_temp), from binaries built on the
# VM: the reduction suites at 16 threads, memcheck and racecheck over the
# whole-reduction cases; then probe_stream_temp before (HEAD) and after, alternated.
start=$(date +%s)
S=$OUT/summary.txt
nvidia-smi -L > $S
T=.gpu/ufunc_subset_tests
t0=$(date +%s)
OMP_NUM_THREADS=16 timeout 200 $T > /tmp/tests.txt 2>&1; echo "subset rc=$? $(( $(date +%s) - t0 )) s" >> $S
grep -E "^\[doctest\] (test cases|assertions|Status)|ERROR|FAILED" /tmp/tests.txt | tail -30 >> $S
tail -c 12000 /tmp/tests.txt > $OUT/tests_tail.txt
tc="reduce: whole reductions on many*,reduce: whole reductions captured*,reduce: argmin/argmax against*,reduce: back-to-back*"
timeout 120 compute-sanitizer --tool memcheck $T -tc="$tc" > /tmp/m.txt 2>&1; echo "memcheck rc=$?: $(grep 'ERROR SUMMARY' /tmp/m.txt) $(grep 'test cases' /tmp/m.txt)" >> $S
timeout 60 compute-sanitizer --tool racecheck $T -tc="reduce: whole reductions on many*,reduce: back-to-back*" > /tmp/r.txt 2>&1; echo "racecheck rc=$?: $(grep 'RACECHECK SUMMARY' /tmp/r.txt)" >> $S
for b in old new old new; do
  left=$(( 540 - ($(date +%s) - start) ))
  [ $left -gt 20 ] && { echo "=== $b"; timeout $left .gpu/probe_$b 2>&1; } >> $OUT/probe.txt
done
echo "total $(( $(date +%s) - start )) s" >> $S
