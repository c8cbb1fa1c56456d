#!/bin/bash
# Call 7 (one H200 machine, 16 idle cores): where a GPU-suite unit's nvcc time
# goes (issue 38): four of the longest test units compiled side by side with
# the suite's flags (host -O1, device -O3, sm_90a) and `nvcc --time`.
F="-DUFUNC_BACKEND_CUDA -DUFUNC_POISON_ALLOCATIONS -DUFUNC_TESTING -I include -I .deps/doctest -O1 -DNDEBUG --generate-code=arch=compute_90a,code=[compute_90a,sm_90a] --extended-lambda -Xcompiler=-fopenmp -x cu -c"
for u in test_reduceat ring_cases test_select_k test_sum_accuracy; do
  ( s=$(date +%s); timeout 420 nvcc $F tests/$u.cpp -o /tmp/$u.o --time $OUT/time_$u.csv > $OUT/log_$u.txt 2>&1; echo "$u rc=$? $(( $(date +%s) - s )) s" >> $OUT/log_$u.txt ) &
done
wait
cat $OUT/log_*.txt > $OUT/logs.txt; rm $OUT/log_*.txt
cd $OUT && tar -czf results.tar.gz *.csv *.txt
