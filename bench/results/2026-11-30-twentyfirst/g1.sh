#!/bin/bash
# Call 1 (two H200s): the sharded whole reduction through deferred host values
# (issue 40). Tests (sharded, throwing) on both GPUs, memcheck over the sharded
# cases, probe_fixed (one process, one GPU: plain vs one-device sharded sum) old
# (HEAD before) and new alternated, test_mpi at 1/2/3 ranks, bench_mpi new and old
# alternated at 2 ranks. MPI from the mpich 5.0.2 wheel.
root=/tmp/m; mkdir -p $root && cd $root && python3 -m zipfile -e $OLDPWD/.gpu/wheels/mpich-*.whl . >/dev/null && cd $OLDPWD
M=$(ls -d $root/mpich-*.data/data)
export PATH=$M/bin:$PATH LD_LIBRARY_PATH=$M/lib/mpich:$M/lib:${LD_LIBRARY_PATH:-}
chmod +x $M/bin/* 2>/dev/null
mkdir -p /tmp/w && tar -C /tmp/w -xJf .gpu/bin.tar.xz
B=/tmp/w/bin
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader > $OUT/gpu.txt
(time OMP_NUM_THREADS=16 $B/ufunc_subset_tests 2>&1 | tail -4) > $OUT/tests.txt 2>&1
(compute-sanitizer --tool memcheck $B/ufunc_subset_tests -tc="sharded: reductions*GPUs*,sharded: out_of_memory*,sharded: argmax*" 2>&1 | tail -4) > $OUT/memcheck.txt 2>&1
for p in probe_fixed_old probe_fixed probe_fixed_old probe_fixed; do echo "== $p"; timeout 60 $B/$p; done > $OUT/probe.txt 2>&1
for n in 1 2 3; do OMP_NUM_THREADS=4 timeout 200 mpiexec -n $n $B/ufunc_mpi_tests 2>&1 | tail -3; done > $OUT/test_mpi.txt 2>&1
for b in bench_mpi bench_mpi_old bench_mpi bench_mpi_old; do echo "== $b"; timeout 150 mpiexec -n 2 $B/$b 20; echo "rc=$?"; done > $OUT/bench_mpi.txt 2>&1
cd $OUT && tar -czf results.tar.gz *.txt
