// Split-k epilogue of the optimized matmul: C = sum over splits of the partial
// products in the workspace, added in split order so results do not depend on
// scheduling. Memory-bound and small: only used when C has too few tiles to
// fill the GPU (C is small), one thread per element of C.
#pragma once

#include "../../linalg_plan.hpp"
#include "linalg_common.cuh"

namespace ufunc::detail {

struct matmul_splitk_tuning {
  static constexpr int block = 256;
};

/// ws holds `splits` slices of `slice` elements, each (batch, m, n) row-major;
/// writes C at p.c with p.ldc and p.batch's C strides.
/// The workspace's elements are W (T, or float for 16-bit T), its rows `ldw`
/// apart (p.n unless padded); the sum is W, rounded to T once.
template <class T, class W>
__global__ void __launch_bounds__(matmul_splitk_tuning::block)
    matmul_splitk_reduce_kernel(gemm_args<T> p, const W* ws, int splits, index_t slice, index_t ldw) {
  for (index_t idx = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; idx < slice;
       idx += static_cast<index_t>(gridDim.x) * blockDim.x) {
    const index_t j = idx % p.n, t = idx / p.n;
    const index_t i = t % p.m, z = t / p.m;
    const index_t w = (z * p.m + i) * ldw + j;
    W sum = ws[w];
    for (int s = 1; s < splits; ++s) sum += ws[s * (slice / p.n * ldw) + w];
    index_t off[3];
    p.batch.offsets(z, off);
    p.c[off[2] + i * p.ldc + j] = static_cast<T>(sum);
  }
}

}  // namespace ufunc::detail
