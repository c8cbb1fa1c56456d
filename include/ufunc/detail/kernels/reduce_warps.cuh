// Short-row reduction: one warp per output (or chunk), for layouts where the
// reduced elements are adjacent but too few (up to about a thousand) to occupy a
// whole block. Lanes stride through the row (coalesced), then cub::WarpReduce
// combines them; a block holds several independent warps.
#pragma once

#include <cub/warp/warp_reduce.cuh>

#include "../reduce_source.hpp"

namespace ufunc::detail {

struct warps_reduce_tuning {
  static constexpr int block = 256;
  static constexpr int unroll = 4;
  static constexpr index_t max_row = 1024;  // longer rows take the block-per-row kernel
};

/// Items as in reduce_rows_kernel (output it % K, chunk it / K), one per warp.
template <int BLOCK, int U, class Src, class Op, class Store>
__global__ void __launch_bounds__(BLOCK)
    reduce_warps_kernel(Src src, Op op, Store store, index_t K, index_t R, index_t chunk_len, index_t items) {
  using Acc = typename Src::acc_type;
  constexpr int WARPS = BLOCK / 32;
  using warp_reduce = cub::WarpReduce<Acc>;
  __shared__ typename warp_reduce::TempStorage tmp[WARPS];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (index_t it = static_cast<index_t>(blockIdx.x) * WARPS + warp; it < items;
       it += static_cast<index_t>(gridDim.x) * WARPS) {
    const index_t o = it % K, r0 = (it / K) * chunk_len;
    const index_t r1 = r0 + chunk_len < R ? r0 + chunk_len : R;
    const auto b = src.base(o);
    Acc acc{};
    index_t r = r0 + lane;
    if (r < r1) {
      acc = src.at(b, r);
      r += 32;
      for (; r + (U - 1) * 32 < r1; r += U * 32) {
        Acc v[U];
#pragma unroll
        for (int u = 0; u < U; ++u) v[u] = src.at(b, r + u * 32);
#pragma unroll
        for (int u = 0; u < U; ++u) acc = op(acc, v[u]);
      }
      for (; r < r1; r += 32) acc = op(acc, src.at(b, r));
    }
    const index_t n = r1 - r0;
    const Acc total = warp_reduce(tmp[warp]).Reduce(acc, op, n < 32 ? static_cast<int>(n) : 32);
    if (lane == 0) store(it, o, total);
    __syncwarp();  // tmp[warp] is reused by the warp's next item
  }
}

}  // namespace ufunc::detail
