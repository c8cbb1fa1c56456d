// Column reduction: one thread per output, for layouts where neighbouring outputs
// are neighbours in memory and the reduced elements are far apart (a reduction
// over a leading axis). A warp then reads consecutive addresses at every step.
// When there are too few outputs to fill the GPU, the reduced range is split into
// chunks along blockIdx.y and the partial results are reduced in a second pass.
#pragma once

#include "../reduce_source.hpp"

namespace ufunc::detail {

struct columns_reduce_tuning {
  static constexpr int block = 256;
  static constexpr int unroll = 8;  // loads in flight per thread
  static constexpr int min_chunk = 32;  // shortest chunk worth a partial result
};

template <int BLOCK, int U, class Src, class Op, class Store>
__global__ void __launch_bounds__(BLOCK)
    reduce_columns_kernel(Src src, Op op, Store store, index_t K, index_t R, index_t chunk_len) {
  using Acc = typename Src::acc_type;
  const index_t o = static_cast<index_t>(blockIdx.x) * BLOCK + threadIdx.x;
  if (o >= K) return;
  const index_t c = blockIdx.y, r0 = c * chunk_len;
  const index_t r1 = r0 + chunk_len < R ? r0 + chunk_len : R;
  const auto b = src.base(o);
  Acc acc = src.at(b, r0);
  index_t r = r0 + 1;
  for (; r + U <= r1; r += U) {
    Acc v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = src.at(b, r + u);
#pragma unroll
    for (int u = 0; u < U; ++u) acc = op(acc, v[u]);
  }
  for (; r < r1; ++r) acc = op(acc, src.at(b, r));
  store(c * K + o, o, acc);
}

}  // namespace ufunc::detail
