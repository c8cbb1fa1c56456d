// Whole reduction (one output) of a source that makes its elements instead of
// loading them (every array operand a lazy random leaf): a grid-stride loop over
// slots of V elements, every thread of a few waves of resident blocks, then one
// block reduction and a partial a block. Such a reduction is bound by arithmetic
// (Philox and Box-Muller), so what matters is the instructions on the loop's
// path: the chunked row kernel (reduce_rows: items, per-chunk ranges, a partial
// slot inside the loop) reached 0.85-0.88 of curandGenerateNormal into memory
// for sum(lazy_normal<float>(2^30)) on an H200, this loop over the general
// source 0.91, over made_vec_fold (no branches for broadcast lanes or slots
// inside a block) more (bench/NOTES.md, session 20).
#pragma once

#include <cub/block/block_reduce.cuh>

#include "../../reduce_source.hpp"
#include "../wide_sum.hpp"

namespace ufunc::detail {

struct made_reduce_tuning {
  /// 256 threads a block, two waves of the resident blocks (H200, session 19's
  /// hand kernel: 1, 2, 4, 8 waves within 3 % of each other).
  static constexpr int block = 256;
  static constexpr int waves = 2;
};

/// Thread t of the grid folds slots t, t + T, t + 2T, ... of the R / V full
/// slots of [0, R) (T threads in all; slot q is elements q V .. q V + V - 1) in
/// increasing index order, and the thread whose next slot would be the partial
/// one folds its elements after them; block b's result is stored as item b.
/// V > 1: the slots come from made_vec_fold (the caller checked the source's
/// made_flat_ok(V)); V = 1: element by element (any layout). Threads past the last slot (a
/// one-block grid over fewer slots) take no part in the block reduction, so no
/// identity is needed.
template <int BLOCK, int V, class Src, class Op, class Store>
__global__ void __launch_bounds__(BLOCK) reduce_made_kernel(Src src, Op op, Store store, index_t R) {
  using Acc = typename Src::acc_type;
  using block_reduce = cub::BlockReduce<Acc, BLOCK>;
  __shared__ typename block_reduce::TempStorage tmp;
  const auto b = src.base(0);
  const index_t first = index_t(blockIdx.x) * BLOCK + threadIdx.x, step = index_t(gridDim.x) * BLOCK;
  const index_t nfull = R / V;
  Acc acc{};
  bool have = false;
  auto add = [&](const Acc& x) {
    acc = have ? combine_in_order(op, acc, x) : x;
    have = true;
  };
  for (index_t q = first; q < nfull; q += step) {
    if constexpr (V == 1) {
      add(src.at(b, q));
    } else {
      typename Src::fold_type v[V];
      src.template made_vec_fold<V>(b, q * V, v);
      if constexpr (is_wide_source<Src>::value) {
        // A widened sum: the slot added in the narrow type by a fixed tree
        // (pairs, then their sums), widened once.
        using N = decltype(src.inner.lift_fold(v[0], q * V));
        N t[V];
#pragma unroll
        for (int j = 0; j < V; ++j) t[j] = src.inner.lift_fold(v[j], q * V + j);
#pragma unroll
        for (int w = 1; w < V; w *= 2)
#pragma unroll
          for (int j = 0; j + w < V; j += 2 * w) t[j] = static_cast<N>(t[j] + t[j + w]);
        add(Src::ws::widen(t[0]));
      } else {
#pragma unroll
        for (int j = 0; j < V; ++j) add(src.lift_fold(v[j], q * V + j));
      }
    }
  }
  if constexpr (V > 1)
    if (nfull * V < R && first == nfull % step)
      for (index_t e = nfull * V; e < R; ++e) add(src.at(b, e));
  const index_t left = (R + V - 1) / V - index_t(blockIdx.x) * BLOCK;  // slots from this block's first on
  const Acc total = block_reduce(tmp).Reduce(acc, op, left < BLOCK ? static_cast<int>(left) : BLOCK);
  if (threadIdx.x == 0) store(index_t(blockIdx.x), index_t(0), total);
}

}  // namespace ufunc::detail
