#!/bin/bash
# Call 2 (one H200): the gufunc kernel's grid against wave quantization (the dot's
# staged blocks: 6 resident an SM by shared memory, a grid of 32 an SM ran 5.33
# waves). bench_gufunc built three ways, alternated: A (HEAD: 2,048 threads an SM),
# B (staged launches: the blocks an SM holds with their shared memory, one wave),
# C (two such waves).
start=$(date +%s)
for b in A B C A B C; do
  left=$(( 400 - ($(date +%s) - start) ))
  [ $left -gt 15 ] && { echo "=== $b"; timeout $left .gpu/bg_$b 2>&1 | grep -E "bandwidth / device copy|rows of 16: band|solve.*/|CHECK|FAIL" | grep -v "  target"; } >> $OUT/bench_gufunc.txt
done
echo "total $(( $(date +%s) - start )) s" >> $OUT/bench_gufunc.txt
