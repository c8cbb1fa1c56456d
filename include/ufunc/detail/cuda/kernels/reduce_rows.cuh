// Row reduction: one thread block reduces one output's elements (or one chunk of
// them), for layouts where the reduced elements lie close together in memory
// (the innermost reduced dim is the fastest-moving one). Threads stride through
// the row in slots of V elements (one 16-byte load each when the row is
// contiguous and aligned, V = 1 otherwise; see fold_slots) so that each load of
// a warp is coalesced, keep several slots in flight, and combine with
// cub::BlockReduce.
#pragma once

#include <algorithm>

#include <cub/block/block_reduce.cuh>

#include "reduce_slots.cuh"

namespace ufunc::detail {

struct rows_reduce_tuning {
  /// 128 threads a row: H200, sum along axis 1 of (8192, 8192) floats (a row is
  /// 2,048 16-byte slots) 0.925 of the read kernel against 0.865 with 256, whose
  /// threads had two rounds of loads each before the block reduction of doubles.
  static constexpr int block = 128;
  /// The whole-range argmin/argmax kernel (reduce_arg_dense), tuned at 256.
  static constexpr int dense_block = 256;
  static constexpr int unroll = 8;      // scalar slots in flight per thread
  static constexpr int vec_unroll = 4;  // 16-byte slots in flight per thread
  /// For slots of type F (Src::fold_type): at most 128 bytes of slots per round,
  /// so a wide one keeps blocks resident. H100, argmax of 2^27 float with the
  /// lifted value-and-index slots (16 bytes): 0.66 / 0.75 / 0.71 of peak at 64 /
  /// 128 / 256 bytes (U = 1, 2, 4); sums (U = 4 either way) unchanged.
  template <class F, int V>
  static constexpr int vec_unroll_for = std::clamp(128 / static_cast<int>(V * sizeof(F)), 1, vec_unroll);
  /// Sources that make their elements (lazy random leaves: no loads to keep in
  /// flight) are bound by arithmetic: 2 slots a round (fewer registers than 4,
  /// more independent work than 1) and 8 waves of the blocks resident at once.
  /// (Measured on whole sums, which now take reduce_made_kernel; these serve
  /// reductions of leaves to a few outputs.)
  /// H200, sum(lazy_normal<float>(2^30)) / curandGenerateNormal into memory
  /// (bench/NOTES.md, session 15): U = 4 at sms x 8 blocks (the loads' tuning)
  /// 0.752; U = 1, 2, 4 at 4 waves 0.83, 0.88, 0.81; U = 2 at 1, 2, 4, 8, 16
  /// waves 0.81, 0.86, 0.88, 0.89, 0.885; fewer registers forced by launch
  /// bounds (12, 16 blocks an SM) spill and lose (0.81, 0.78).
  static constexpr int made_unroll = 2;
  static constexpr int made_waves = 8;
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
  if constexpr (Src::is_partial) grid_dependency_wait();  // (finish_one's dependent launch)
  for (index_t it = blockIdx.x; it < items; it += gridDim.x) {
    const index_t o = it % K, r0 = (it / K) * chunk_len;
    const index_t r1 = r0 + chunk_len < R ? r0 + chunk_len : R;
    const index_t nslots = (r1 - r0 + V - 1) / V;
    Acc acc{};
    bool have = false;
    fold_slots<U, V>(src, src.row(o), op, r0, r1, threadIdx.x, BLOCK, acc, have);
    const Acc total = block_reduce(tmp).Reduce(acc, op, nslots < BLOCK ? static_cast<int>(nslots) : BLOCK);
    if (threadIdx.x == 0) store(it, o, total);
    __syncthreads();  // tmp is reused by the next item
  }
}

}  // namespace ufunc::detail
