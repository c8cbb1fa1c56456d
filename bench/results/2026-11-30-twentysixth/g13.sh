#!/bin/bash
# Call 13: the reduction and lazy suites built on this VM with the round loads
# in one block (fold_slots), run at 16 threads.
cd "$(dirname "$0")"
xz -d ufunc_subset_tests.xz && chmod +x ufunc_subset_tests
t0=$(date +%s)
OMP_NUM_THREADS=16 timeout 125 ./ufunc_subset_tests > $OUT/tests.txt 2>&1; echo "rc=$? $(( $(date +%s) - t0 )) s" >> $OUT/tests.txt
grep -E "^\[doctest\]|ERROR|FAILED|rc=" $OUT/tests.txt | tail -20
