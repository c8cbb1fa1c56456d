// matmul variant "naive" (the seed's kernel): one thread per element of C, each
// reading a row of A and a column of B straight from global memory. A teaching
// baseline: every operand element is re-read from L1/L2 by many threads, so it
// runs far below the arithmetic peak. Correct for every size (the seed tested
// `row < m and col < n` the wrong way round and had no batch support).
#pragma once

#include "../../linalg_plan.hpp"
#include "linalg_common.cuh"

namespace ufunc::detail {

struct matmul_naive_tuning {
  static constexpr int block_x = 16;  // threads along n (C's contiguous dim: coalesced B reads and C writes)
  static constexpr int block_y = 16;  // threads along m
};

template <class T>
__global__ void __launch_bounds__(matmul_naive_tuning::block_x * matmul_naive_tuning::block_y)
    matmul_naive_kernel(gemm_args<T> p) {
  using tun = matmul_naive_tuning;
  const index_t col = static_cast<index_t>(blockIdx.x) * tun::block_x + threadIdx.x;
  if (col >= p.n) return;  // no barriers below: early exit is safe
  for (index_t z = blockIdx.z; z < p.batch.count; z += gridDim.z) {
    index_t off[3];
    p.batch.offsets(z, off);
    const T* a = p.a + off[0];
    const T* b = p.b + off[1] + col;
    T* c = p.c + off[2] + col;
    for (index_t row = static_cast<index_t>(blockIdx.y) * tun::block_y + threadIdx.y; row < p.m;
         row += static_cast<index_t>(gridDim.y) * tun::block_y) {
      const T* ar = a + row * p.lda;
      using Acc = typename matmul_acc<T>::type;  // float for 16-bit inputs
      Acc sum = 0;
      for (index_t i = 0; i < p.k; ++i) sum += static_cast<Acc>(ar[i]) * static_cast<Acc>(b[i * p.ldb]);
      c[row * p.ldc] = static_cast<T>(sum);
    }
  }
}

}  // namespace ufunc::detail
