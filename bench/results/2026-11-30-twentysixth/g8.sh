#!/bin/bash
# Call 8: the reduction suites built on this VM at the session's device code
# (row_t, the argmax kernel, dependent second passes), run at 16 threads; then
# bench_lazy, bench_half and bench_reduce at HEAD (O, ba03ae8) and with the
# changes (N), alternated.
cd "$(dirname "$0")"
start=$(date +%s)
xz -d ufunc_subset_tests.xz && chmod +x ufunc_subset_tests
OMP_NUM_THREADS=16 timeout 200 ./ufunc_subset_tests > $OUT/tests.txt 2>&1; echo "rc=$? $(( $(date +%s) - start )) s" >> $OUT/tests.txt
grep -E "^\[doctest\]|ERROR|FAILED" $OUT/tests.txt | tail -30
for v in O N N O; do echo "== bench_lazy $v"; ./bench_lazy_$v 2>&1 | sed -n '/^summary/,$p'; done
for v in O N N O; do echo "== bench_half $v"; ./bench_half_$v 2>&1 | sed -n '/^summary/,$p'; done
left=$(( 570 - ($(date +%s) - start) ))
for v in O N; do echo "== bench_reduce $v"; timeout $(( left / 2 )) ./bench_reduce_$v 2>&1 | sed -n '/^summary/,$p'; done
