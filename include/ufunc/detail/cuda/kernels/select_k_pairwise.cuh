// argmin_k / argmax_k over a pairwise layout (pairwise_plan.hpp: every input
// moves along the outputs' axis alone, x_i, or along the reduced axis alone,
// y_j): k-nearest neighbours over N x M pairs with no N x M memory. The staging
// is reduce_pairwise.cuh's (its helpers are reused): a block stages a tile of
// y_j in shared memory, each thread keeps its IPT outputs' x_i in registers
// and applies the map to every staged j. Instead of an accumulator, each
// output has a sorted list of its K best (value, index) pairs in registers
// (select_k_list.hpp: fully unrolled, constant positions). A pair costs the
// map and one comparison with the list's last value (a register); the few
// pairs that pass are inserted, branch-free over the K positions. Inserts are
// rare: about K (1 + ln(M / K)) per output over a row of M in random order
// (194 for K = 16, M = 2^20, against 2^20 comparisons), so the divergence
// they cause in a warp costs little even when every lane's inserts fall at
// different j.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

#include <cuda/std/tuple>

#include "../../reduce_source.hpp"
#include "../../select_k_list.hpp"
#include "reduce_pairwise.cuh"  // pair_tiles, pair_value, pair_ivals, pair_load_ivals, pair_load_tiles

namespace ufunc::detail {

struct select_k_pairwise_tuning {
  static constexpr int block = 128;
  static constexpr int tile = 256;  // y_j staged per round
  /// Outputs per thread: each staged y_j serves this many (the lists take 2K
  /// registers each for 32-bit values: K = 16 at 2 outputs is 64 registers of
  /// lists; K = 64 at 1 output 128).
  template <int K>
  static constexpr int outputs_per_thread = K <= 4 ? 4 : (K <= 16 ? 2 : 1);
};

/// The map of the pair (output slot u, staged element jj).
template <unsigned Mask, int Tile, class Src, class IVals, std::size_t... K>
__device__ __forceinline__ auto select_pair_map(const Src& src, const unsigned char* smem, unsigned jmask,
                                                const IVals& iv, int u, int jj, std::index_sequence<K...>) {
  using Ins = decltype(src.ins);
  return src.map(pair_value<K, Mask, Tile, Ins>(smem, jmask, iv, u, jj)...);
}

/// Grid: x over blocks of Block * IPT outputs, y over chunks of the j range
/// (chunk_len each; blockIdx.y * chunk_len the first). Each output's list of
/// chunk c goes to the results (partial = false: one chunk; values when out_v
/// is set) or to the partial lists at (c * nout + i) * K, merged by
/// select_k_merge_kernel. Indices in registers are chunk-relative (32-bit).
template <int Block, int IPT, int K, bool Largest, unsigned Mask, class Src, class V>
__global__ void __launch_bounds__(Block)
    select_k_pairwise_kernel(Src src, V* out_v, index_t* out_i, index_t nout, index_t R, index_t chunk_len,
                             unsigned jmask, bool partial) {
  constexpr int Tile = select_k_pairwise_tuning::tile;
  using Ins = decltype(src.ins);
  constexpr std::size_t NIN = cuda::std::tuple_size<Ins>::value;
  using seq = std::make_index_sequence<NIN>;
  using order = select_order<V, Largest>;
  using list_t = k_list<V, K, std::uint32_t>;
  __shared__ __align__(16) unsigned char smem[pair_tiles<Ins, Tile>::bytes];

  const index_t i0 = index_t(blockIdx.x) * Block * IPT + threadIdx.x;
  const index_t j_begin = index_t(blockIdx.y) * chunk_len;
  const index_t j_end = j_begin + chunk_len < R ? j_begin + chunk_len : R;

  // The outputs' own values, loaded once (clamped: threads past nout compute
  // a copy of the last output and store nothing).
  typename pair_ivals<IPT, Ins>::type iv;
  pair_load_ivals<IPT, Block>(src, iv, i0, nout, seq{});
  list_t list[IPT];
#pragma unroll
  for (int u = 0; u < IPT; ++u) list[u].template clear<order>();

  for (index_t jt = j_begin; jt < j_end; jt += Tile) {
    const int n = static_cast<int>(j_end - jt < Tile ? j_end - jt : Tile);
    __syncthreads();  // the previous tile is no longer read
    pair_load_tiles<Block, Tile>(src, smem, jmask, jt, n, seq{});
    __syncthreads();  // the tile is staged
    const auto r0 = static_cast<std::uint32_t>(jt - j_begin);
#pragma unroll 4
    for (int jj = 0; jj < n; ++jj) {
#pragma unroll
      for (int u = 0; u < IPT; ++u) {
        const V v = static_cast<V>(select_pair_map<Mask, Tile>(src, smem, jmask, iv, u, jj, seq{}));
        if (order::may_enter(v, list[u].worst())) list[u].template insert<order>(v, r0 + static_cast<std::uint32_t>(jj));
      }
    }
  }
#pragma unroll
  for (int u = 0; u < IPT; ++u) {
    const index_t i = i0 + index_t(u) * Block;
    if (i < nout) {
      const index_t at = (partial ? index_t(blockIdx.y) * nout + i : i) * K;
      store_k_list(list[u], out_v, out_i, at, j_begin, partial);
    }
  }
}

}  // namespace ufunc::detail
