#!/bin/bash
# probe_sortpaths.cu from the old tree (/tmp/old22, HEAD b5c9fd0) and the new one (/work/main).
set -e
cd /tmp/pb22
for t in new old; do
  inc=/work/main/include; [ $t = old ] && inc=/tmp/old22/include
  nvcc -std=c++17 -DUFUNC_BACKEND_CUDA -I $inc -I /work/main/bench -O3 -DNDEBUG --generate-code=arch=compute_90a,code=[compute_90a,sm_90a] --extended-lambda -Xcompiler=-fopenmp -x cu -c probe_sortpaths.cu -o p_$t.o
  g++ -fopenmp p_$t.o -o bin/probe_sortpaths_$t -L/usr/local/cuda/lib64 -lcudart_static -ldl -lrt -lpthread
done
