// Short-row reduction: a group of G lanes (a whole warp, or 4 or 2 lanes for
// short rows) per output (or chunk), for layouts where the reduced elements are
// adjacent but too few (up to about a thousand) to occupy a whole block. Lanes
// stride through the row in slots of V elements (one 16-byte load each when the
// row is contiguous and aligned, V = 1 otherwise) with several slots in flight,
// then shuffles within the group combine them. Short rows take small
// groups so that each lane still has several loads in flight and no lane idles:
// a 64-float row is 16 slots, 4 per lane of a 4-lane group, where a whole warp
// would leave half its lanes empty and the rest with one load each.
#pragma once

#include <cuda/std/type_traits>
#include <cstring>

#include "reduce_slots.cuh"

namespace ufunc::detail {

struct warps_reduce_tuning {
  static constexpr int block = 256;
  static constexpr int unroll = 4;          // slots in flight per lane
  static constexpr index_t max_row = 1024;  // longer rows take the block-per-row kernel
  /// Lanes per output for rows of `slots` slots: a pair up to 8 slots, 4 lanes
  /// up to 64 (at most 4 rounds of loads each), a whole warp beyond. Measured on
  /// the H100 (bench_reduce): rows of 64 to 1000 floats at 0.85-0.88 of peak,
  /// where a warp per row of 64 reached 0.29; rows of 16-36 at 0.64-0.67.
  static constexpr int pair = 2, quad = 4, warp = 32;
  static constexpr int group_for(index_t slots) { return slots <= 8 ? pair : slots <= 64 ? quad : warp; }
};

/// Shuffles a value of any trivially copyable type down by `delta` lanes within
/// segments of `width` lanes (the whole warp takes part).
template <class T>
__device__ __forceinline__ T shfl_down_any(const T& v, int delta, int width) {
  static_assert(cuda::std::is_trivially_copyable_v<T>, "ufunc: a reduction's accumulator must be trivially copyable");
  constexpr int W = (sizeof(T) + 3) / 4;
  unsigned w[W];
  memcpy(w, &v, sizeof(T));
#pragma unroll
  for (int i = 0; i < W; ++i) w[i] = __shfl_down_sync(0xffffffffu, w[i], delta, width);
  T r;
  memcpy(&r, w, sizeof(T));
  return r;
}

/// Items as in reduce_rows_kernel (output it % K, chunk it / K; chunk_len is a
/// multiple of V), one per group of `g` lanes (2, 4 or 32: a run-time value, so
/// one instantiation serves every row length). Lanes without elements take no
/// part in the group's reduction, so no identity is needed. A warp's groups step
/// through the items together, so every shuffle has the whole warp.
template <int BLOCK, int U, int V, class Src, class Op, class Store>
__global__ void __launch_bounds__(BLOCK) reduce_warps_kernel(Src src, Op op, Store store, index_t K, index_t R,
                                                             index_t chunk_len, index_t items, int g) {
  static_assert(BLOCK % 32 == 0);
  using Acc = typename Src::acc_type;
  const int lane = static_cast<int>(threadIdx.x) & (g - 1);
  const int per_warp = 32 / g;
  const index_t warps = static_cast<index_t>(gridDim.x) * (BLOCK / 32);
  for (index_t first = (static_cast<index_t>(blockIdx.x) * (BLOCK / 32) + threadIdx.x / 32) * per_warp; first < items;
       first += warps * per_warp) {
    const index_t it = first + static_cast<index_t>(threadIdx.x % 32) / g;
    // (Without a split there is no 64-bit division per item: short rows cannot
    // afford one per 64 bytes.)
    const bool split = items != K;
    const index_t o = split ? it % K : it, r0 = split ? (it / K) * chunk_len : 0;
    const index_t r1 = it >= items ? r0 : r0 + chunk_len < R ? r0 + chunk_len : R;
    const index_t nslots = (r1 - r0 + V - 1) / V;
    Acc acc{};
    bool have = false;
    if (nslots > 0) fold_slots<U, V>(src, src.row(o), op, r0, r1, lane, g, acc, have);
    // Lanes 0 .. valid-1 of the group hold values; combine them in lane order.
    const index_t valid = nslots < g ? nslots : g;
    for (int d = 1; d < g; d *= 2) {
      const Acc other = shfl_down_any(acc, d, g);
      if (lane + d < valid) acc = op(acc, other);
    }
    if (lane == 0 && it < items) store(it, o, acc);
  }
}

}  // namespace ufunc::detail
