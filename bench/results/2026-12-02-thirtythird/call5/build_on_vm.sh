#!/bin/bash
# Built on the 2-core VM, in a scratch folder; see g*.sh of the call for what ran.
# As call 4's, against a copy of include/ (/tmp/rcinc) whose cuda/launch.hpp sets
# programmaticStreamSerializationAllowed = 0 in launch_dependent.
export PATH=/usr/local/cuda/bin:$PATH
N="nvcc -forward-unknown-to-host-compiler -DUFUNC_BACKEND_CUDA -DUFUNC_HAVE_NCCL -DUFUNC_POISON_ALLOCATIONS -DUFUNC_TESTING -I/tmp/rcinc -I/work/main/tests -isystem=/usr/local/cuda/include -DNDEBUG --generate-code=arch=compute_90a,code=[compute_90a,sm_90a] --extended-lambda -Xcompiler=-fopenmp -Xcompiler=-Og -x cu -c"
$N test_reduce_more.cpp -o trm2.o
c++ -O1 /tmp/sub/main.o trm2.o -o t_rc2 -L/usr/local/cuda/targets/x86_64-linux/lib -Wl,--as-needed /usr/lib/gcc/x86_64-linux-gnu/12/libgomp.so /usr/local/cuda/lib/libcudart_static.a -ldl -lrt -lpthread
ls -la t_rc2
