// What a view access out of range reports (UFUNC_DEBUG): on the device a
// printf and a trap, on the host std::out_of_range.
#pragma once

#include <cstdio>
#include <stdexcept>
#include <string>

#include "../config.hpp"

namespace ufunc::detail {

/// A view access out of range (UFUNC_DEBUG). `dim` < 0: a flat `v[i]` against the
/// element count. Device: prints the index and extent and traps, which aborts the
/// kernel (the launch then fails with a CUDA error); host: std::out_of_range.
UFUNC_HD inline void view_index_error(index_t idx, index_t extent, int dim) {
#if UFUNC_DEVICE_PASS
  if (dim < 0)
    printf("ufunc::array_view[]: index %lld is out of range for extent %lld (block %u, thread %u)\n",
           static_cast<long long>(idx), static_cast<long long>(extent), blockIdx.x, threadIdx.x);
  else
    printf("ufunc::array_view(): index %lld is out of range for extent %lld in dimension %d (block %u, thread %u)\n",
           static_cast<long long>(idx), static_cast<long long>(extent), dim, blockIdx.x, threadIdx.x);
  __trap();
#else
  std::string msg = dim < 0 ? "ufunc::array_view[]: index " : "ufunc::array_view(): index ";
  msg += std::to_string(idx) + " is out of range for extent " + std::to_string(extent);
  if (dim >= 0) msg += " in dimension " + std::to_string(dim);
  throw std::out_of_range(msg);
#endif
}

/// `v(i, j, ...)` with a number of indices other than the view's rank (UFUNC_DEBUG).
UFUNC_HD inline void view_rank_error(int given, int rank) {
#if UFUNC_DEVICE_PASS
  printf("ufunc::array_view(): %d indices given for a view of rank %d (block %u, thread %u)\n", given, rank,
         blockIdx.x, threadIdx.x);
  __trap();
#else
  throw std::out_of_range("ufunc::array_view(): " + std::to_string(given) + " indices given for a view of rank " +
                          std::to_string(rank));
#endif
}

}  // namespace ufunc::detail
