#!/bin/bash
# Built on the 2-core VM, in a scratch folder; see g*.sh of the call for what ran.
# test_reduce_more.cpp copied here with its thread count read at run time:
#   sed -i 's/constexpr int threads = 2, calls = 24;/const int threads = std::getenv("RC_THREADS") ? std::atoi(std::getenv("RC_THREADS")) : 2; constexpr int calls = 24;/' test_reduce_more.cpp
export PATH=/usr/local/cuda/bin:$PATH
N="nvcc -forward-unknown-to-host-compiler -DUFUNC_BACKEND_CUDA -DUFUNC_HAVE_NCCL -DUFUNC_POISON_ALLOCATIONS -DUFUNC_TESTING -I/work/main/include -I/work/main/tests -isystem=/usr/local/cuda/include -DNDEBUG --generate-code=arch=compute_90a,code=[compute_90a,sm_90a] --extended-lambda -Xcompiler=-fopenmp -Xcompiler=-Og -x cu -c"
$N test_reduce_more.cpp -o trm.o
c++ -O1 /tmp/sub/main.o trm.o -o t_rc -L/usr/local/cuda/targets/x86_64-linux/lib -Wl,--as-needed /usr/lib/gcc/x86_64-linux-gnu/12/libgomp.so /usr/local/cuda/lib/libcudart_static.a -ldl -lrt -lpthread
ls -la t_rc
