// The second pass of argmin_k / argmax_k when rows were cut into chunks: each
// output's chunk lists (sorted, at (c * nout + o) * K, empty entries last with
// index_t's largest index) merged into one list of K, written to the results.
// One thread per output, the chunks in order; a list is sorted, so once one
// of its entries stays out the rest of it is skipped. The order is total, so
// the result is the one a single pass over the row gives.
#pragma once

#include "../../select_k_list.hpp"

namespace ufunc::detail {

template <int Block, int K, bool Largest, class V>
__global__ void __launch_bounds__(Block)
    select_k_merge_kernel(const V* part_v, const index_t* part_i, V* out_v, index_t* out_i, index_t nout,
                          index_t nchunks) {
  using order = select_order<V, Largest>;
  for (index_t o = index_t(blockIdx.x) * Block + threadIdx.x; o < nout; o += index_t(gridDim.x) * Block) {
    k_list<V, K, index_t> list;
    list.template clear<order>();
    for (index_t c = 0; c < nchunks; ++c) {
      const index_t at = (c * nout + o) * K;
      for (int s = 0; s < K; ++s)
        if (!list.template insert<order>(part_v[at + s], part_i[at + s])) break;
    }
    store_k_list(list, out_v, out_i, o * K, 0, false);
  }
}

}  // namespace ufunc::detail
