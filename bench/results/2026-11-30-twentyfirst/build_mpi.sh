set -e
M=$(ls -d /tmp/mw/mpich-*.data/data)
cd /work/main
flags=(-std=c++17 -O2 -DNDEBUG --generate-code=arch=compute_90a,code=[compute_90a,sm_90a] --extended-lambda --expt-relaxed-constexpr -DUFUNC_BACKEND_CUDA -DUFUNC_HAVE_NCCL -Xcompiler -fopenmp -I"$M/include")
link=(-L"$M/lib" -Xlinker -rpath-link="$M/lib/mpich" -lmpi -L/usr/local/cuda/lib -lnccl -ldl)
nvcc "${flags[@]}" -Iinclude -Ibench -x cu bench/bench_mpi.cu -o /tmp/pb1/bin/bench_mpi "${link[@]}" &
nvcc "${flags[@]}" -I/tmp/old/include -Ibench -x cu bench/bench_mpi.cu -o /tmp/pb1/bin/bench_mpi_old "${link[@]}"
wait
nvcc "${flags[@]}" -Iinclude -DUFUNC_TESTING -DUFUNC_POISON_ALLOCATIONS -x cu tests/mpi/test_mpi.cpp tests/rank_cases.cpp tests/ring_cases.cpp -o /tmp/pb1/bin/ufunc_mpi_tests "${link[@]}"
echo done
