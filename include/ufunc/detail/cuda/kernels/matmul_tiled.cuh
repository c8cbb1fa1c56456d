// matmul variant "tiled" (the seed's kernel, made correct): 16x16 tiles of A and
// B staged in shared memory, one thread per element of C. Each operand element
// is read from global memory once per tile row/column instead of once per
// output, but every multiply-add still needs two shared-memory loads, which
// caps it far below the arithmetic peak. Tiles past the matrix edges are
// zero-filled, so every size is correct (the seed assumed multiples of 16).
#pragma once

#include "../../linalg_plan.hpp"
#include "linalg_common.cuh"

namespace ufunc::detail {

struct matmul_tiled_tuning {
  static constexpr int tile = 16;  // (TILE, TILE) tiles, one thread per element
};

template <class T>
__global__ void __launch_bounds__(matmul_tiled_tuning::tile * matmul_tiled_tuning::tile)
    matmul_tiled_kernel(gemm_args<T> p) {
  constexpr int TS = matmul_tiled_tuning::tile;
  __shared__ T as[TS][TS];      // (TILE_M, TILE_K)
  __shared__ T bs[TS][TS + 1];  // (TILE_K, TILE_N); +1 keeps column reads of different rows in different banks
  const int tx = threadIdx.x, ty = threadIdx.y;
  const index_t col = static_cast<index_t>(blockIdx.x) * TS + tx;
  const index_t tiles_m = (p.m + TS - 1) / TS;
  for (index_t z = blockIdx.z; z < p.batch.count; z += gridDim.z) {
    index_t off[3];
    p.batch.offsets(z, off);
    for (index_t tm = blockIdx.y; tm < tiles_m; tm += gridDim.y) {
      const index_t row = tm * TS + ty;
      const T* a = p.a + off[0] + row * p.lda;
      const T* b = p.b + off[1] + col;
      T sum = 0;
      for (index_t k0 = 0; k0 < p.k; k0 += TS) {
        // Out-of-range elements load as 0, so the product over the padded tile is exact.
        as[ty][tx] = (row < p.m && k0 + tx < p.k) ? a[k0 + tx] : T(0);
        bs[ty][tx] = (k0 + ty < p.k && col < p.n) ? b[(k0 + ty) * p.ldb] : T(0);
        __syncthreads();  // the tiles are complete before anyone reads them
#pragma unroll
        for (int kk = 0; kk < TS; ++kk) sum += as[ty][kk] * bs[kk][tx];
        __syncthreads();  // everyone is done reading before the next tile overwrites them
      }
      if (row < p.m && col < p.n) p.c[off[2] + row * p.ldc + col] = sum;
    }
  }
}

}  // namespace ufunc::detail
