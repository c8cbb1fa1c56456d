#!/bin/bash
# Call 1 (one H200): the owed validation of the review mend 7582b76 (stream_temp's
# fallback a device_temp; the slot looked up only when its block could serve).
# The reduction suites built on the VM (ufunc_subset_tests: test_reduce_more,
# test_reduce, test_half_reduce, test_faults, test_memory_resource) at 16 and 2
# threads; memcheck over the cases that use stream_temp; racecheck over the
# shared-stream case alone (it did not finish in 150 s on the full binary in
# session 29) and over the many-streams case.
start=$(date +%s)
S=$OUT/summary.txt
T=/tmp/t/ufunc_subset_tests
mkdir -p /tmp/t && xz -dc .gpu/subset.xz > $T && chmod +x $T
{ nvidia-smi -L; nproc; sha256sum $T; } > $S
for th in 16 2; do
  t0=$(date +%s)
  OMP_NUM_THREADS=$th timeout 150 $T > /tmp/tests$th.txt 2>&1; echo "tests at $th threads rc=$? $(( $(date +%s) - t0 )) s" >> $S
  grep -E "^\[doctest\] (test cases|assertions)|ERROR|FAILED" /tmp/tests$th.txt | tail -20 >> $S
done
tail -c 8000 /tmp/tests16.txt > $OUT/tests16_tail.txt
tc="reduce: whole reductions on many*,reduce: whole reductions captured*,reduce: argmin/argmax against*,reduce: back-to-back*,faults: the first reduction*,memory_resource: a call*"
t0=$(date +%s)
timeout 150 compute-sanitizer --tool memcheck $T -tc="$tc" > /tmp/memcheck.txt 2>&1; echo "memcheck rc=$? $(( $(date +%s) - t0 )) s: $(grep 'ERROR SUMMARY' /tmp/memcheck.txt) $(grep 'test cases' /tmp/memcheck.txt)" >> $S
for c in "reduce: back-to-back*" "reduce: whole reductions on many*"; do
  left=$(( 560 - ($(date +%s) - start) ))
  [ $left -gt 10 ] || break
  t0=$(date +%s)
  timeout $left compute-sanitizer --tool racecheck $T -tc="$c" > /tmp/race.txt 2>&1
  echo "racecheck [$c] rc=$? $(( $(date +%s) - t0 )) s: $(grep 'RACECHECK SUMMARY' /tmp/race.txt) $(grep 'test cases' /tmp/race.txt)" >> $S
  tail -c 3000 /tmp/race.txt >> $OUT/race_tail.txt
done
echo "total $(( $(date +%s) - start )) s" >> $S
