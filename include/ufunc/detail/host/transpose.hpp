// Host backend of transpose and strided copies: the batched 2-D copy of
// copy_args in (tile x tile) blocks, one OpenMP task per block, so that both
// the rows read and the rows written stay in L1 while a block is moved.
#pragma once

#include "../../stream.hpp"
#include "../linalg_plan.hpp"
#include "parallel.hpp"

namespace ufunc::detail::host {

struct transpose_tuning {
  static constexpr index_t tile = 32;
};

/// dst[b, i, j] = src[b, i, j] for storage type S. Synchronous.
template <class S>
void run_copy(const copy_args& p, stream_ref = {}) {
  constexpr index_t TILE = transpose_tuning::tile;
  if (p.ni == 0 || p.nj == 0 || p.batch.count == 0) return;
  const index_t ti = (p.ni + TILE - 1) / TILE, tj = (p.nj + TILE - 1) / TILE;
  parallel_n(p.batch.count * ti * tj, [&p, ti, tj](index_t t) {
    const index_t z = t / (ti * tj), rest = t % (ti * tj);
    const index_t i0 = rest / tj * TILE, j0 = rest % tj * TILE;
    const index_t i1 = std::min(p.ni, i0 + TILE), j1 = std::min(p.nj, j0 + TILE);
    index_t off[2];
    p.batch.offsets(z, off);
    const S* src = static_cast<const S*>(p.src) + off[1] + j0 * p.s_j;
    S* dst = static_cast<S*>(p.dst) + off[0] + j0 * p.d_j;
    const index_t w = j1 - j0, s_j = p.s_j, d_j = p.d_j;
    for (index_t i = i0; i < i1; ++i) {
      const S* s = src + i * p.s_i;
      S* d = dst + i * p.d_i;
      if (d_j == 1)  // the usual case: a contiguous destination row segment
        for (index_t j = 0; j < w; ++j) d[j] = s[j * s_j];
      else
        for (index_t j = 0; j < w; ++j) d[j * d_j] = s[j * s_j];
    }
  });
}

}  // namespace ufunc::detail::host
