// parallel_for kernel: a grid-stride loop over the row-major linearisation of a
// 1-, 2- or 3-D index space. Consecutive threads take consecutive last indices
// (coalesced when the body indexes memory row-major). The multi-index is
// computed by division once per thread; each stride step then advances it with
// additions and carries only, so no division runs inside the loop.
#pragma once

#include <cstddef>

#include "../../../config.hpp"

namespace ufunc::detail {

/// The index space: extents (dims[0] slowest) and their product n > 0.
template <int R>
struct index_space {
  index_t dims[R];
  index_t n;
};

template <int R, class F>
__global__ void parallel_for_kernel(F f, index_space<R> sp) {
  using sz = std::size_t;
  const index_t stride = static_cast<index_t>(gridDim.x) * blockDim.x;
  index_t t = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const index_t n = sp.n;  // n + stride fits in index_t: n <= 2^63-1 - 2^42 is checked on the host
  if constexpr (R == 1) {
    for (; t < n; t += stride) f(static_cast<sz>(t));
  } else if constexpr (R == 2) {
    if (t >= n) return;
    const index_t cols = sp.dims[1];
    index_t i = t / cols, j = t % cols;
    const index_t si = stride / cols, sj = stride % cols;  // the stride as a (row, column) step
    for (;;) {
      f(static_cast<sz>(i), static_cast<sz>(j));
      t += stride;
      if (t >= n) break;
      i += si;
      j += sj;
      if (j >= cols) {  // j < 2 cols: one carry at most
        j -= cols;
        ++i;
      }
    }
  } else {
    static_assert(R == 3, "parallel_for_kernel: 1 to 3 dimensions");
    if (t >= n) return;
    const index_t d1 = sp.dims[1], d2 = sp.dims[2];
    index_t k = t % d2, r = t / d2;
    index_t j = r % d1, i = r / d1;
    const index_t sk = stride % d2, sr = stride / d2;
    const index_t sj = sr % d1, si = sr / d1;
    for (;;) {
      f(static_cast<sz>(i), static_cast<sz>(j), static_cast<sz>(k));
      t += stride;
      if (t >= n) break;
      k += sk;
      j += sj;
      i += si;
      if (k >= d2) {
        k -= d2;
        ++j;
      }
      if (j >= d1) {  // j <= 2 d1 - 1 after the two additions: one carry at most
        j -= d1;
        ++i;
      }
    }
  }
}

}  // namespace ufunc::detail
