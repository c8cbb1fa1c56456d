#!/bin/bash
# Call 3 (one H200): CUB's size answer kept per call site and thread (N) against
# 703017b (O): bench_reduce (sum to host / floor, ufunc::sum / CUB Sum, axis sums)
# and probe_stream_temp (host us a call; the bf16 2^28 sum one call), alternated.
start=$(date +%s)
for b in O N O N; do
  left=$(( 500 - ($(date +%s) - start) ))
  [ $left -gt 20 ] && { echo "=== $b"; timeout $left .gpu/br_$b 2>&1 | grep -E "ratio|floor|us |CHECK|FAIL"; } >> $OUT/bench_reduce.txt
done
for b in new N new N; do
  left=$(( 540 - ($(date +%s) - start) ))
  [ $left -gt 20 ] && { echo "=== $b"; timeout $left .gpu/probe_$b 2>&1; } >> $OUT/probe.txt
done
echo "total $(( $(date +%s) - start )) s" >> $OUT/probe.txt
