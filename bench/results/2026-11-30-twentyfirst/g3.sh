#!/bin/bash
# Call 3 (two H200s): memcheck of the sharded cases without the CUDA API errors
# NCCL's own probes raise (cudaFuncGetAttributes: no kernel image); the topology;
# bench_mpi new and old alternated at 2 ranks, three each, the last four with each
# rank bound to cores (mpiexec -bind-to core).
root=/tmp/m; mkdir -p $root && cd $root && python3 -m zipfile -e $OLDPWD/.gpu/wheels/mpich-*.whl . >/dev/null && cd $OLDPWD
M=$(ls -d $root/mpich-*.data/data)
export PATH=$M/bin:$PATH LD_LIBRARY_PATH=$M/lib/mpich:$M/lib:${LD_LIBRARY_PATH:-}
chmod +x $M/bin/* 2>/dev/null
mkdir -p /tmp/w && tar -C /tmp/w -xJf .gpu/bin.tar.xz
B=/tmp/w/bin
nvidia-smi topo -m > $OUT/topo.txt 2>&1
compute-sanitizer --tool memcheck --report-api-errors no $B/ufunc_subset_tests -tc="sharded: reductions*GPUs*,sharded: out_of_memory*" 2>&1 | tail -4 > $OUT/memcheck.txt
for b in bench_mpi bench_mpi_old; do echo "== $b"; timeout 150 mpiexec -n 2 $B/$b 20 | grep -E "sum|rc"; done > $OUT/bench_mpi.txt 2>&1
for b in bench_mpi bench_mpi_old bench_mpi bench_mpi_old; do echo "== $b bound"; timeout 150 mpiexec -bind-to core -n 2 $B/$b 20 | grep -E "sum|rc"; done >> $OUT/bench_mpi.txt 2>&1
