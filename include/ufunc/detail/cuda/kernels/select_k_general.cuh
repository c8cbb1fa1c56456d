// argmin_k / argmax_k over any layout (the general path: no input split into
// x_i / y_j roles, several kept dims, a plain array): one thread per output
// and chunk of its row, reading the elements through the reduction source
// (map over the broadcast inputs at (output, r)) and keeping the output's K
// best (value, index) pairs in registers (select_k_list.hpp). Neighbouring
// threads take neighbouring outputs. Each thread's list of chunk c goes to the
// results (one chunk) or to the partial lists at (c * nout + o) * K, merged by
// select_k_merge_kernel.
#pragma once

#include <cstdint>

#include "../../reduce_source.hpp"
#include "../../select_k_list.hpp"

namespace ufunc::detail {

struct select_k_general_tuning {
  static constexpr int block = 128;
};

/// Grid-stride over nout * nchunks (output, chunk) items, the output fastest.
template <int Block, int K, bool Largest, class Src, class V>
__global__ void __launch_bounds__(Block)
    select_k_general_kernel(Src src, V* out_v, index_t* out_i, index_t nout, index_t R, index_t chunk_len,
                            index_t nchunks, bool partial) {
  using order = select_order<V, Largest>;
  using list_t = k_list<V, K, std::uint32_t>;
  const index_t items = nout * nchunks;
  for (index_t t = index_t(blockIdx.x) * Block + threadIdx.x; t < items; t += index_t(gridDim.x) * Block) {
    const index_t o = t % nout, c = t / nout;
    const index_t j_begin = c * chunk_len;
    const index_t j_end = j_begin + chunk_len < R ? j_begin + chunk_len : R;
    const auto b = src.base(o);
    list_t list;
    list.template clear<order>();
    for (index_t r = j_begin; r < j_end; ++r) {
      const V v = static_cast<V>(src.at(b, r));
      if (order::may_enter(v, list.worst())) list.template insert<order>(v, static_cast<std::uint32_t>(r - j_begin));
    }
    store_k_list(list, out_v, out_i, (partial ? t : o) * K, j_begin, partial);
  }
}

}  // namespace ufunc::detail
