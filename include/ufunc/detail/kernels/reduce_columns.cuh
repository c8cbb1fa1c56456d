// Column reduction: one thread per V neighbouring outputs, for layouts where
// neighbouring outputs are neighbours in memory and the reduced elements are far
// apart (a reduction over a leading axis). A warp then reads consecutive
// addresses at every step (16 bytes per thread when V > 1). When there are too
// few outputs to fill the GPU, the reduced range is split into chunks along
// blockIdx.y and the partial results are reduced in a second pass.
#pragma once

#include "../reduce_source.hpp"

namespace ufunc::detail {

struct columns_reduce_tuning {
  static constexpr int block = 256;
  static constexpr int unroll = 8;      // scalar loads in flight per thread
  static constexpr int vec_unroll = 4;  // 16-byte loads in flight per thread
  static constexpr int min_chunk = 32;  // shortest chunk worth a partial result
};

/// Thread t of block x handles outputs (x * BLOCK + t) * V ... + V - 1 (K is a
/// multiple of V), reduced elements [c * chunk_len, ...) of chunk c = blockIdx.y.
template <int BLOCK, int U, int V, class Src, class Op, class Store>
__global__ void __launch_bounds__(BLOCK)
    reduce_columns_kernel(Src src, Op op, Store store, index_t K, index_t R, index_t chunk_len) {
  using Acc = typename Src::acc_type;
  const index_t o = (static_cast<index_t>(blockIdx.x) * BLOCK + threadIdx.x) * V;
  if (o >= K) return;
  const index_t c = blockIdx.y, r0 = c * chunk_len;
  const index_t r1 = r0 + chunk_len < R ? r0 + chunk_len : R;
  const auto b = src.base(o);
  auto load = [&](index_t r, Acc* v) {
    if constexpr (V == 1)
      v[0] = src.at(b, r);
    else
      src.template at_vec<V>(b, r, 0, v);
  };
  Acc acc[V];
  load(r0, acc);
  index_t r = r0 + 1;
  for (; r + U <= r1; r += U) {
    Acc v[U][V];
#pragma unroll
    for (int u = 0; u < U; ++u) load(r + u, v[u]);
#pragma unroll
    for (int u = 0; u < U; ++u)
#pragma unroll
      for (int j = 0; j < V; ++j) acc[j] = op(acc[j], v[u][j]);
  }
  for (; r < r1; ++r) {
    Acc v[V];
    load(r, v);
#pragma unroll
    for (int j = 0; j < V; ++j) acc[j] = op(acc[j], v[j]);
  }
#pragma unroll
  for (int j = 0; j < V; ++j) store(c * K + o + j, o + j, acc[j]);
}

}  // namespace ufunc::detail
