set -e
mkdir -p /tmp/pb1/bin && cd /tmp/pb1
NV="nvcc -DUFUNC_BACKEND_CUDA -DUFUNC_HAVE_NCCL -I /work/main/bench -O3 -DNDEBUG --generate-code=arch=compute_90a,code=[compute_90a,sm_90a] --extended-lambda -Xcompiler=-fopenmp -std=c++17"
LK="-L/usr/local/cuda/lib64 -lcudart_static -ldl -lrt -lpthread -L/usr/local/cuda/lib -lnccl"
$NV -I /work/main/include -x cu -c /work/main/bench/results/2026-11-30-twentieth/probe_fixed.cu -o pf_new.o &
$NV -I /tmp/old/include -x cu -c /work/main/bench/results/2026-11-30-twentieth/probe_fixed.cu -o pf_old.o
wait
g++ -fopenmp pf_new.o -o bin/probe_fixed $LK
g++ -fopenmp pf_old.o -o bin/probe_fixed_old $LK
MPIF=$(mpicxx -show | tr ' ' '\n' | grep -E '^-I' | tr '\n' ' ')
MPIL=$(mpicxx -show | tr ' ' '\n' | grep -E '^-(L|l|Wl)' | tr '\n' ' ')
$NV -I /tmp/old/include $MPIF -x cu -c /tmp/old/bench/bench_mpi.cu -o bm_old.o
g++ -fopenmp bm_old.o -o bin/bench_mpi_old $LK $MPIL
echo done
