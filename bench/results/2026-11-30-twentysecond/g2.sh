#!/bin/bash
# Call 2 (one H200): the gufunc grid sized to the blocks an SM holds with the
# staged blocks' shared memory (issue 41's dot). test_gufunc and test_select_k
# (resident_blocks now takes the dynamic shared memory) at 16 threads,
# memcheck and racecheck over the gufunc cases, bench_gufunc new / old
# alternated three times.
mkdir -p /tmp/w && tar -C /tmp/w -xJf .gpu/bin.tar.xz
B=/tmp/w/bin
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader > $OUT/gpu.txt
(time OMP_NUM_THREADS=16 $B/ufunc_subset_tests 2>&1 | tail -4) > $OUT/tests.txt 2>&1
(compute-sanitizer --tool memcheck $B/ufunc_subset_tests -tc="gufunc*" 2>&1 | tail -3) > $OUT/memcheck.txt 2>&1
(compute-sanitizer --tool racecheck $B/ufunc_subset_tests -tc="gufunc*" 2>&1 | tail -3) > $OUT/racecheck.txt 2>&1
for b in bench_gufunc bench_gufunc_old bench_gufunc bench_gufunc_old bench_gufunc bench_gufunc_old; do echo "== $b"; timeout 100 $B/$b; done > $OUT/bench_gufunc.txt 2>&1
cd $OUT && tar -czf results.tar.gz *.txt
