#!/bin/bash
# Call 5 (one H200): the gufunc staging with 16-byte cp.async (uncommitted tree):
# test_gufunc built on the VM (ufunc_subset_tests) run at 16 threads, memcheck and
# racecheck over its GPU case; then bench_gufunc at HEAD (old), with the change
# (new) and with the change plus the kernel's dynamic shared memory cap always set
# to the budget (new2), alternated twice.
S=$OUT/summary.txt
{ nvidia-smi -L; } > $S
OMP_NUM_THREADS=16 timeout 120 .gpu/ufunc_gufunc_tests > /tmp/t.txt 2>&1; echo "tests rc=$?" >> $S
grep -E "^\[doctest\]|ERROR|FAILED" /tmp/t.txt | tail -20 >> $S
timeout 120 compute-sanitizer --tool memcheck .gpu/ufunc_gufunc_tests -tc="gufunc on the GPU*" > /tmp/m.txt 2>&1; echo "memcheck rc=$?: $(grep 'ERROR SUMMARY' /tmp/m.txt) $(grep 'test cases' /tmp/m.txt)" >> $S
timeout 150 compute-sanitizer --tool racecheck .gpu/ufunc_gufunc_tests -tc="gufunc on the GPU*" > /tmp/r.txt 2>&1; echo "racecheck rc=$?: $(grep 'RACECHECK SUMMARY' /tmp/r.txt) $(grep 'test cases' /tmp/r.txt)" >> $S
for b in bench_gufunc bench_gufunc_new bench_gufunc_new2 bench_gufunc bench_gufunc_new bench_gufunc_new2; do
  { echo "=== $b"; timeout 60 .gpu/$b 2>&1; echo "rc=$?"; } >> $OUT/benches.txt
done
