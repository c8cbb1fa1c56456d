#!/usr/bin/env bash
# Builds bench/bench_matx.cu (ufunc against NVIDIA MatX, bench/README.md "MatX")
# with nvcc directly, no CMake: MatX's own CMake fetches CCCL and more through
# rapids-cmake/CPM, which a machine without internet cannot do, and MatX is
# header-only. Release flags as the project's bench builds (-O3, sm_90a,
# --extended-lambda, OpenMP, the static CUDA runtime); C++20, which MatX needs.
#   usage: scripts/build_matx_bench.sh [matx_include_dir]
#   (default $MATX_INCLUDE, else build-matx/matx-include where present, else /tmp/matx/include)
#   output: build-matx/bench_matx; ARCH=90a by default; EXTRA="..." adds flags.
set -euo pipefail
cd "$(dirname "$0")/.."
default=/tmp/matx/include
[ -f build-matx/matx-include/matx.h ] && default=build-matx/matx-include
MATX=${1:-${MATX_INCLUDE:-$default}}
[ -f "$MATX/matx.h" ] || { echo "no matx.h in $MATX (give MatX's include dir)" >&2; exit 2; }
CUDA=${CUDA_HOME:-/usr/local/cuda}
NVCC=$CUDA/bin/nvcc
ARCH=${ARCH:-90a}
mkdir -p build-matx
# MatX defines: none needed. Left undefined: MATX_DISABLE_CUB_CACHE (MatX's CMake
# defines it by default; without it MatX caches its CUB plans and temporaries
# between calls, the faster setting), MATX_EN_* (cuTENSOR, cuDSS, MathDx, JIT,
# CPU BLAS/FFT: all off), MATX_NVTX_FLAGS (off: no NVTX ranges from MatX).
# Libraries: cuBLAS and cuBLASLt (matmul), the driver (MatX's executor queries it).
set -x
"$NVCC" -std=c++20 -O3 -DNDEBUG "-gencode=arch=compute_${ARCH},code=sm_${ARCH}" --extended-lambda \
  -Xcompiler=-fopenmp -DUFUNC_BACKEND_CUDA -Iinclude -I"$MATX" -cudart static \
  ${EXTRA:-} bench/bench_matx.cu -o build-matx/bench_matx -lcublasLt -lcublas -lcuda -ldl
