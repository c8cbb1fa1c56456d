#!/bin/bash
# Call 7 (one H200): call 6's suites again after the new test's fix (its arrays
# outlived the streams they free on), with memcheck and racecheck over the
# argmin/argmax cases.
nvidia-smi -L > $OUT/gpu.txt
xz -dc .gpu/ufunc_subset_tests.xz > /tmp/t && chmod +x /tmp/t
OMP_NUM_THREADS=16 timeout 200 /tmp/t > $OUT/tests.txt 2>&1; echo "rc=$?" >> $OUT/tests.txt
tc="reduce: argmin/argmax*,reduce: whole reductions captured*"
timeout 150 compute-sanitizer --tool memcheck /tmp/t -tc="$tc" > $OUT/memcheck.txt 2>&1; echo "rc=$?" >> $OUT/memcheck.txt
timeout 120 compute-sanitizer --tool racecheck /tmp/t -tc="reduce: argmin/argmax on many*" > $OUT/racecheck.txt 2>&1; echo "rc=$?" >> $OUT/racecheck.txt
grep -E "^\[doctest\]|ERROR|FAILED|failed" $OUT/tests.txt | tail -20 > $OUT/tests_summary.txt
