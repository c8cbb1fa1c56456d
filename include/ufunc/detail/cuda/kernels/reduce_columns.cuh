// Column reduction, for layouts where neighbouring outputs are neighbours in
// memory and the reduced elements are far apart (a reduction over a leading
// axis). A block is (bx, by) threads: thread (tx, ty) holds V neighbouring
// outputs (one 16-byte load per row when V > 1) and reduces one contiguous run
// of the block's rows; the by partial results of a column are then combined in
// shared memory. The x extent keeps each warp's loads in full 128-byte segments,
// the y extent gives a long reduced range enough threads (and loads in flight)
// without a second pass. Only when the outputs and the block's rows together
// still cannot fill the GPU is the reduced range split into chunks along
// blockIdx.y, whose partial results a second pass reduces. Runs are combined in
// row order, so the op need only be associative here. The source's plans stay in
// the kernel's parameters; what each load needs from them (an input's step along
// the reduced dim, whether it moves along the outputs) is read once into
// registers (`column`), and the vector kernel takes one reduced dim only, so a
// load's offset is one multiply-add: (8192, 8192) float axis 0 / a read of the
// same bytes on an H200 0.91 -> 0.94, the same sum of lazy(X) * Y 0.89 -> 0.95.
#pragma once

#include <algorithm>

#include "../../reduce_source.hpp"
#include "../wide_sum.hpp"

namespace ufunc::detail {

struct columns_reduce_tuning {
  static constexpr int block = 512;
  static constexpr int unroll = 8;  // scalar loads in flight per thread
  /// 16-byte loads in flight per thread: 8 while the loaded values (as V
  /// accumulators each) fit in 128 bytes of registers, fewer for wide accumulators.
  template <class Acc, int V>
  static constexpr int vec_unroll = std::clamp(128 / static_cast<int>(V * sizeof(Acc)), 2, 8);
  /// Elements per vector load for a source of width VW (16 bytes of input): at
  /// most 64 bytes of accumulators per thread, so that the block's shared
  /// memory (BLOCK * V accumulators) stays at 32 KiB and registers are not spilled.
  template <class Acc>
  static constexpr int vec_width(int VW) {
    int v = VW;
    while (v > 1 && v * sizeof(Acc) > 64) v /= 2;
    return v;
  }
  static constexpr int min_run = 16;  // fewest rows per thread worth another thread
  static constexpr int min_vec_bx = 16;     // 16-byte loads: 256 bytes per warp row
  static constexpr int min_scalar_bx = 32;  // scalar loads: a whole warp per row
  /// Bytes in flight per SM (loads issued, not yet returned) that keep the memory
  /// busy; a split adds a pass, so it is made only below this.
  static constexpr int bytes_in_flight_per_sm = 64 * 1024;
};

/// Block (x, c) of threads (bx, by) handles outputs [x * bx * V, (x + 1) * bx * V)
/// (K is a multiple of V) and rows [c * chunk_len, ...) of chunk c; thread ty
/// takes the ty-th run of ceil(rows / by) of them. Every chunk has at least one
/// row; threads without rows take no part in the combination, so no identity is
/// needed.
template <int BLOCK, int U, int V, class Src, class Op, class Store>
__global__ void __launch_bounds__(BLOCK)
    reduce_columns_kernel(Src src, Op op, Store store, index_t K, index_t R, index_t chunk_len) {
  using Acc = typename Src::acc_type;
  __shared__ alignas(Acc) unsigned char raw[sizeof(Acc) * BLOCK * V];
  Acc* sh = reinterpret_cast<Acc*>(raw);
  const int bx = static_cast<int>(blockDim.x), by = static_cast<int>(blockDim.y);
  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  const index_t o = (static_cast<index_t>(blockIdx.x) * bx + tx) * V;
  const index_t c = blockIdx.y, r0 = c * chunk_len;
  const index_t n = (r0 + chunk_len < R ? r0 + chunk_len : R) - r0;
  const index_t run = (n + by - 1) / by;
  const int ny = static_cast<int>((n + run - 1) / run);  // threads that get rows
  Acc* mine = sh + (ty * bx + tx) * V;
  if (o < K && ty < ny) {
    const index_t a = r0 + ty * run, e = (a + run < r0 + n ? a + run : r0 + n);
    // A widened sum (wide_sum.hpp) loads the narrow values, adds each round's in
    // the narrow type and widens the round's sum: the loads in flight keep the
    // registers of a narrow sum, and a double add is paid once a round.
    using L = typename column_load<Src>::type;
    const auto& ls = column_load<Src>::of(src);
    const auto col = ls.column(o);
    auto load = [&](index_t r, L* v) {
      if constexpr (V == 1)
        v[0] = ls.at_column(col, r);
      else
        ls.template at_column<V>(col, r, v);
    };
    Acc acc[V];
    {
      L v[V];
      load(a, v);
#pragma unroll
      for (int j = 0; j < V; ++j) acc[j] = column_load<Src>::widen(v[j]);
    }
    // A round's U rows are folded while the next round's loads are in flight
    // (software pipelining): a warp otherwise waits for a round, folds it, and
    // only then issues the next. (8192, 8192) axis 0 / read kernel: H200 0.85 ->
    // 0.87, H100 0.93 -> 0.94 (one block of 16 warps an SM there).
    auto fold_round = [&](L (&v)[U][V]) {
      if constexpr (column_load<Src>::wide) {
        // A round's U rows added in the narrow type (U - 1 roundings), widened once.
#pragma unroll
        for (int j = 0; j < V; ++j) {
          L t = v[0][j];
#pragma unroll
          for (int u = 1; u < U; ++u) t = static_cast<L>(t + v[u][j]);
          acc[j] = op(acc[j], column_load<Src>::widen(t));
        }
      } else {
#pragma unroll
        for (int u = 0; u < U; ++u)
#pragma unroll
          for (int j = 0; j < V; ++j) acc[j] = combine_in_order(op, acc[j], column_load<Src>::widen(v[u][j]));
      }
    };
    index_t r = a + 1;
    if (r + U <= e) {
      L v[U][V];
#pragma unroll
      for (int u = 0; u < U; ++u) load(r + u, v[u]);
      for (;;) {
        const index_t rn = r + U;
        const bool more = rn + U <= e;
        L w[U][V];
        if (more)
#pragma unroll
          for (int u = 0; u < U; ++u) load(rn + u, w[u]);
        fold_round(v);
        r = rn;
        if (!more) break;
#pragma unroll
        for (int u = 0; u < U; ++u)
#pragma unroll
          for (int j = 0; j < V; ++j) v[u][j] = w[u][j];
      }
    }
    for (; r < e; ++r) {
      L v[V];
      load(r, v);
#pragma unroll
      for (int j = 0; j < V; ++j) acc[j] = combine_in_order(op, acc[j], column_load<Src>::widen(v[j]));
    }
#pragma unroll
    for (int j = 0; j < V; ++j) mine[j] = acc[j];
  }
  // Pairwise in run order: run ty absorbs run ty + step.
  for (int step = 1; step < ny; step *= 2) {
    __syncthreads();
    if (o < K && ty % (2 * step) == 0 && ty + step < ny) {
      const Acc* other = mine + step * bx * V;
#pragma unroll
      for (int j = 0; j < V; ++j) mine[j] = op(mine[j], other[j]);
    }
  }
  if (o < K && ty == 0)  // (its own last write: no barrier needed)
#pragma unroll
    for (int j = 0; j < V; ++j) store(c * K + o + j, o + j, mine[j]);
}

}  // namespace ufunc::detail
