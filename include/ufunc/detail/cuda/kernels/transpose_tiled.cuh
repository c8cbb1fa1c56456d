// transpose variant "tiled" (the seed's kernel): a 32x32 tile staged through
// shared memory, so that both the reads (along i) and the writes (along j) are
// coalesced. The tile is padded to 32x33 so that reading a column touches 32
// different banks. 32x8 threads, 4 elements each; edge tiles are guarded (the
// seed assumed multiples of 32).
#pragma once

#include "../../linalg_plan.hpp"
#include "linalg_common.cuh"

namespace ufunc::detail {

struct transpose_tiled_tuning {
  static constexpr int tile = 32;
  static constexpr int rows = 8;  // thread rows; each thread moves tile / rows elements
};

template <class S>
__global__ void __launch_bounds__(transpose_tiled_tuning::tile * transpose_tiled_tuning::rows)
    transpose_tiled_kernel(copy_args p) {
  constexpr int TILE = transpose_tiled_tuning::tile, ROWS = transpose_tiled_tuning::rows;
  __shared__ S tile[TILE][TILE + 1];  // (j, i); +1: column reads hit 32 banks
  const S* src = static_cast<const S*>(p.src);
  S* dst = static_cast<S*>(p.dst);
  const int tx = threadIdx.x, ty = threadIdx.y;
  const index_t tiles_j = (p.nj + TILE - 1) / TILE;
  for (index_t z = blockIdx.z; z < p.batch.count; z += gridDim.z) {
    index_t off[2];
    p.batch.offsets(z, off);
    for (index_t tj = blockIdx.y; tj < tiles_j; tj += gridDim.y)
      for (index_t ti = blockIdx.x; ti * TILE < p.ni; ti += gridDim.x) {
        const index_t i0 = ti * TILE, j0 = tj * TILE;
        {  // read: threads along i (coalesced)
          const index_t i = i0 + tx;
#pragma unroll
          for (int r = 0; r < TILE; r += ROWS) {
            const index_t j = j0 + ty + r;
            if (i < p.ni && j < p.nj) tile[ty + r][tx] = src[off[1] + i * p.s_i + j * p.s_j];
          }
        }
        __syncthreads();  // the tile is complete before it is read across
        {  // write: threads along j (coalesced)
          const index_t j = j0 + tx;
#pragma unroll
          for (int r = 0; r < TILE; r += ROWS) {
            const index_t i = i0 + ty + r;
            if (i < p.ni && j < p.nj) dst[off[0] + i * p.d_i + j * p.d_j] = tile[tx][ty + r];
          }
        }
        __syncthreads();  // everyone has read the tile before the next one overwrites it
      }
  }
}

}  // namespace ufunc::detail
