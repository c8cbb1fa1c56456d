#!/bin/bash
# Call 5 (two H200s): test_mpi (built on this VM with sync_stream) at 1, 2 and 3
# ranks, then bench_mpi at 2 ranks (K = 20 for the kernel sum). MPI from the
# mpich 5.0.2 wheel, NCCL the machine's libnccl.so.2.
root=/tmp/m; mkdir -p $root && cd $root && python3 -m zipfile -e $OLDPWD/.gpu/wheels/mpich-*.whl . >/dev/null && cd $OLDPWD
M=$(ls -d $root/mpich-*.data/data)
export PATH=$M/bin:$PATH LD_LIBRARY_PATH=$M/lib/mpich:$M/lib:${LD_LIBRARY_PATH:-}
chmod +x $M/bin/* 2>/dev/null
mkdir -p /tmp/w && tar -C /tmp/w -xJf .gpu/bin.tar.xz
nvidia-smi -L > $OUT/gpu.txt
for n in 1 2 3; do OMP_NUM_THREADS=4 timeout 200 mpiexec -n $n /tmp/w/bin/test_mpi 2>&1 | tail -3; done > $OUT/test_mpi.txt 2>&1
timeout 300 mpiexec -n 2 /tmp/w/bin/bench_mpi 20 > $OUT/bench_mpi.txt 2>&1; echo "rc=$?" >> $OUT/bench_mpi.txt
cd $OUT && tar -czf results.tar.gz *.txt
