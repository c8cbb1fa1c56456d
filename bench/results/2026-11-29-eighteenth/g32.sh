#!/bin/bash
# Session 18, call 6 (two H200s, nvidia-h200-x2): the bounded wait after the NCCL
# all-reduce across ranks (test_mpi under mpiexec -n 1, 2, 3: with 2 ranks the last
# rank leaves the all-reduce and the other must throw after UFUNC_COLLECTIVE_TIMEOUT
# = 3 s, then a new communicator serves the next sum); bench_mpi with 2 ranks (sum and
# pdf scaling against one rank); the final pack-sum subset tests on GPU 0.
R=$PWD; T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
L=$OUT/log.txt; mkdir -p /tmp/gbin && tar -C /tmp/gbin -xJf $R/.gpu/bin.tar.xz; B=/tmp/gbin/bin
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee $L
root=$(mktemp -d); python3 -m zipfile -e $R/.gpu/wheels/mpich-*.whl $root
M=$(ls -d $root/mpich-*.data/data); chmod +x $M/bin/*
nccl_so=$(find /usr /opt -name 'libnccl.so.2*' 2>/dev/null | head -1); echo "nccl: $nccl_so" | tee -a $L
export PATH=$M/bin:$PATH LD_LIBRARY_PATH=$M/lib/mpich:$M/lib:$(dirname "$nccl_so"):${LD_LIBRARY_PATH:-}
for n in 2 1 3; do
  OMP_NUM_THREADS=4 timeout 240 mpiexec -n $n $B/test_mpi > $OUT/test_mpi_$n.txt 2>&1
  echo "test_mpi -n $n rc $? at $(el) s: $(grep -E 'test_mpi:|FAIL' $OUT/test_mpi_$n.txt | head -5 | tr '\n' '|')" | tee -a $L
done
[ -x $B/bench_mpi ] && { timeout 300 mpiexec -n 2 $B/bench_mpi 20 > $OUT/bench_mpi_2.txt 2>&1; echo "bench_mpi -n 2 rc $? at $(el) s" | tee -a $L; grep -iE "x one|ratio|PASS|FAIL" $OUT/bench_mpi_2.txt | head -20 | tee -a $L; }
OMP_NUM_THREADS=16 timeout 200 $B/ut_final > $OUT/tests.txt 2>&1; echo "subset tests rc $? at $(el) s" | tee -a $L
tail -3 $OUT/tests.txt | tee -a $L; grep -B4 -A14 "ERROR\|FAILED" $OUT/tests.txt | head -40 | tee -a $L
cd $OUT && tar -czf results.tar.gz *.txt
