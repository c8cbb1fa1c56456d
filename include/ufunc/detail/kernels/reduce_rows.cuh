// Row reduction: one thread block reduces one output's elements (or one chunk of
// them), for layouts where the reduced elements lie close together in memory
// (the innermost reduced dim is the fastest-moving one). Threads stride through
// the row so that each load instruction of a warp is coalesced, keep `unroll`
// loads in flight, and combine with cub::BlockReduce at the end.
#pragma once

#include <cub/block/block_reduce.cuh>

#include "../reduce_source.hpp"

namespace ufunc::detail {

struct rows_reduce_tuning {
  static constexpr int block = 256;
  static constexpr int unroll = 8;  // independent loads per thread before combining
};

/// Item `it` of K * nchunks is output `it % K`, chunk `it / K` (chunk-major, so a
/// partial result is stored at index `it`). Every chunk has at least one element;
/// threads without elements take no part in the block reduction, so no identity
/// is needed.
template <int BLOCK, int U, class Src, class Op, class Store>
__global__ void __launch_bounds__(BLOCK)
    reduce_rows_kernel(Src src, Op op, Store store, index_t K, index_t R, index_t chunk_len, index_t items) {
  using Acc = typename Src::acc_type;
  using block_reduce = cub::BlockReduce<Acc, BLOCK>;
  __shared__ typename block_reduce::TempStorage tmp;
  for (index_t it = blockIdx.x; it < items; it += gridDim.x) {
    const index_t o = it % K, r0 = (it / K) * chunk_len;
    const index_t r1 = r0 + chunk_len < R ? r0 + chunk_len : R;
    const auto b = src.base(o);
    Acc acc{};
    index_t r = r0 + threadIdx.x;
    if (r < r1) {
      acc = src.at(b, r);
      r += BLOCK;
      for (; r + (U - 1) * BLOCK < r1; r += U * BLOCK) {
        Acc v[U];
#pragma unroll
        for (int u = 0; u < U; ++u) v[u] = src.at(b, r + u * BLOCK);
#pragma unroll
        for (int u = 0; u < U; ++u) acc = op(acc, v[u]);
      }
      for (; r < r1; r += BLOCK) acc = op(acc, src.at(b, r));
    }
    const index_t n = r1 - r0;
    const Acc total = block_reduce(tmp).Reduce(acc, op, n < BLOCK ? static_cast<int>(n) : BLOCK);
    if (threadIdx.x == 0) store(it, o, total);
    __syncthreads();  // tmp is reused by the next item
  }
}

}  // namespace ufunc::detail
