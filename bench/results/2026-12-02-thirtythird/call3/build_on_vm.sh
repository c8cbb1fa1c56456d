#!/bin/bash
# Built on the 2-core VM, in a scratch folder; see g*.sh of the call for what ran.
export PATH=/usr/local/cuda/bin:$PATH
N="nvcc -forward-unknown-to-host-compiler -DUFUNC_BACKEND_CUDA -DUFUNC_HAVE_NCCL -DUFUNC_POISON_ALLOCATIONS -DUFUNC_TESTING -I/work/main/include -isystem=/usr/local/cuda/include -DNDEBUG --generate-code=arch=compute_90a,code=[compute_90a,sm_90a] --extended-lambda -Xcompiler=-fopenmp -x cu -c"
c++ -O1 -DNDEBUG -DUFUNC_BACKEND_CUDA -I/work/main/include -isystem /usr/local/cuda/include/cccl -isystem /usr/local/cuda/include -fopenmp -c /work/main/tests/main.cpp -o main.o
for u in test_sum_accuracy test_vectorize_large; do
  for o in O1 Og; do echo "$N -Xcompiler=-$o /work/main/tests/$u.cpp -o ${u}_$o.o"; done
done | xargs -P2 -I{} sh -c "{}"
for o in O1 Og; do
  c++ -O1 main.o test_sum_accuracy_$o.o test_vectorize_large_$o.o -o t_$o -L/usr/local/cuda/targets/x86_64-linux/lib -Wl,--as-needed /usr/lib/gcc/x86_64-linux-gnu/12/libgomp.so /usr/local/cuda/lib/libcudart_static.a -ldl -lrt -lpthread
done
ls -la t_*
