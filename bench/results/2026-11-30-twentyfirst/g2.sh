#!/bin/bash
# Call 2 (two H200s): memcheck case by case with the first errors shown; test_mpi
# (built against the mpich wheel, as scripts/gpu_mpi.sh) at 1/2/3 ranks; bench_mpi
# new and old alternated at 2 ranks (K = 20).
root=/tmp/m; mkdir -p $root && cd $root && python3 -m zipfile -e $OLDPWD/.gpu/wheels/mpich-*.whl . >/dev/null && cd $OLDPWD
M=$(ls -d $root/mpich-*.data/data)
export PATH=$M/bin:$PATH LD_LIBRARY_PATH=$M/lib/mpich:$M/lib:${LD_LIBRARY_PATH:-}
chmod +x $M/bin/* 2>/dev/null
mkdir -p /tmp/w && tar -C /tmp/w -xJf .gpu/bin.tar.xz
B=/tmp/w/bin
for tc in "sharded: reductions*GPUs*" "sharded: out_of_memory*" "sharded: argmax*"; do
  echo "== $tc"; compute-sanitizer --tool memcheck --print-limit 3 $B/ufunc_subset_tests -tc="$tc" 2>&1 | grep -v "^=========     \(Host Frame\|Device Frame\)" | head -40
done > $OUT/memcheck.txt 2>&1
for n in 1 2 3; do OMP_NUM_THREADS=4 timeout 200 mpiexec -n $n $B/ufunc_mpi_tests 2>&1 | tail -3; done > $OUT/test_mpi.txt 2>&1
for b in bench_mpi bench_mpi_old bench_mpi bench_mpi_old; do echo "== $b"; timeout 150 mpiexec -n 2 $B/$b 20; echo "rc=$?"; done > $OUT/bench_mpi.txt 2>&1
