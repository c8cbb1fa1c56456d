#!/bin/bash
# Session 13, call 1: the twelfth session's untested units (split sort units, reduceat bound,
# rotated index types, gufunc), the fused NaN pass of the segmented sort (new vs old tree),
# bench_random + CuPy/PyTorch random peers.
export PATH=/usr/local/cuda/bin:$PATH
R=$PWD
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
(lscpu | grep "Model name"; nproc; nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader) | tee $OUT/machine.txt
cfg() { cmake -S $1 -B $2 -G Ninja -DUFUNC_BACKEND=cuda -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_BUILD_TYPE=Release \
  -DUFUNC_DOCTEST_INCLUDE_DIR=$R/.deps/doctest -DUFUNC_BUILD_BENCH=ON "-DUFUNC_SUBSET_TESTS=$3" > $2.cfg.log 2>&1 || tail $2.cfg.log; }
cfg $R /tmp/n "test_sort.cpp;test_sort_half.cpp;test_sort_ints.cpp;test_reduceat.cpp;test_gufunc.cpp" &
cfg $R/.gpu/old /tmp/o "" & wait
(ninja -C /tmp/n -j14 bench_sort bench_random ufunc_subset_tests > $OUT/build_n.log 2>&1; echo "new rc $? at $(el) s" >> $OUT/log.txt) &
(ninja -C /tmp/o -j2 bench_sort > $OUT/build_o.log 2>&1; echo "old rc $? at $(el) s" >> $OUT/log.txt) &
wait
cat $OUT/log.txt; tail -3 $OUT/build_n.log
for r in 1 2; do
  for v in n o; do echo "== bench_sort $v round $r at $(el) s"; timeout 60 /tmp/$v/bench/bench_sort 2>&1 | grep -E "segmented|ratio|FAIL|mismatch|PASS"; done
done 2>&1 | tee $OUT/bench_sort.txt
echo "== tests at $(el) s"
OMP_NUM_THREADS=16 timeout $((560 - $(el))) /tmp/n/tests/ufunc_subset_tests > $OUT/tests.txt 2>&1; echo "tests rc $?"
tail -4 $OUT/tests.txt; grep -B3 -A12 "ERROR\|FAILED" $OUT/tests.txt | head -40
echo "== bench_random at $(el) s"
[ $(el) -lt 470 ] && timeout 60 /tmp/n/bench/bench_random > $OUT/bench_random.txt 2>&1; grep -E "ratio|ms" $OUT/bench_random.txt | head -20
[ $(el) -lt 500 ] && timeout 50 python3 $R/bench/peers/random_peers.py > $OUT/random_peers.txt 2>&1; cat $OUT/random_peers.txt
echo "== memcheck at $(el) s"
[ $(el) -lt 520 ] && timeout $((585 - $(el))) compute-sanitizer --tool memcheck /tmp/n/tests/ufunc_subset_tests -tc='sort: many rows*,f.reduceat: NumPy*' > $OUT/memcheck.txt 2>&1; tail -3 $OUT/memcheck.txt
echo "done at $(el) s"
