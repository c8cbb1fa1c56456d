// Row reduction: one thread block reduces one output's elements (or one chunk of
// them), for layouts where the reduced elements lie close together in memory
// (the innermost reduced dim is the fastest-moving one). Threads stride through
// the row in slots of V elements (one 16-byte load each when the row is
// contiguous and aligned, V = 1 otherwise) so that each load of a warp is
// coalesced, keep several slots in flight, and combine with cub::BlockReduce.
#pragma once

#include <cub/block/block_reduce.cuh>

#include "../reduce_source.hpp"

namespace ufunc::detail {

struct rows_reduce_tuning {
  static constexpr int block = 256;
  static constexpr int unroll = 8;      // scalar slots in flight per thread
  static constexpr int vec_unroll = 4;  // 16-byte slots in flight per thread
};

/// Item `it` of K * nchunks is output `it % K`, chunk `it / K` (chunk-major, so a
/// partial result is stored at index `it`); chunk_len is a multiple of V. Every
/// chunk has at least one element; threads without elements take no part in the
/// block reduction, so no identity is needed.
template <int BLOCK, int U, int V, class Src, class Op, class Store>
__global__ void __launch_bounds__(BLOCK)
    reduce_rows_kernel(Src src, Op op, Store store, index_t K, index_t R, index_t chunk_len, index_t items) {
  using Acc = typename Src::acc_type;
  using block_reduce = cub::BlockReduce<Acc, BLOCK>;
  __shared__ typename block_reduce::TempStorage tmp;
  for (index_t it = blockIdx.x; it < items; it += gridDim.x) {
    const index_t o = it % K, r0 = (it / K) * chunk_len;
    const index_t r1 = r0 + chunk_len < R ? r0 + chunk_len : R;
    const index_t n = r1 - r0, nslots = (n + V - 1) / V, nfull = n / V;
    const auto b = src.base(o);
    // Folds slot q into a (or starts a from it).
    auto fold = [&](index_t q, Acc& a, bool first) {
      const index_t r = r0 + q * V;
      if (V > 1 && q < nfull) {
        Acc v[V];
        src.template at_vec<V>(b, r, 1, v);
        a = first ? v[0] : op(a, v[0]);
#pragma unroll
        for (int j = 1; j < V; ++j) a = op(a, v[j]);
      } else {
        a = first ? src.at(b, r) : op(a, src.at(b, r));
        for (index_t e = r + 1; e < r + V && e < r1; ++e) a = op(a, src.at(b, e));
      }
    };
    Acc acc{};
    index_t q = threadIdx.x;
    if (q < nslots) {
      fold(q, acc, true);
      q += BLOCK;
      for (; q + (U - 1) * BLOCK < nfull; q += U * BLOCK) {
        Acc v[U][V];
#pragma unroll
        for (int u = 0; u < U; ++u) {
          if constexpr (V == 1)
            v[u][0] = src.at(b, r0 + q + u * BLOCK);
          else
            src.template at_vec<V>(b, r0 + (q + u * BLOCK) * V, 1, v[u]);
        }
#pragma unroll
        for (int u = 0; u < U; ++u)
#pragma unroll
          for (int j = 0; j < V; ++j) acc = op(acc, v[u][j]);
      }
      for (; q < nslots; q += BLOCK) fold(q, acc, false);
    }
    const Acc total = block_reduce(tmp).Reduce(acc, op, nslots < BLOCK ? static_cast<int>(nslots) : BLOCK);
    if (threadIdx.x == 0) store(it, o, total);
    __syncthreads();  // tmp is reused by the next item
  }
}

}  // namespace ufunc::detail
