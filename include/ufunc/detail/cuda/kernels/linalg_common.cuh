// Helpers shared by the matmul and transpose launchers and kernels.
#pragma once

#include <algorithm>
#include <cstring>

#include "../../../config.hpp"
#include "../../../error.hpp"
#include "../../../stream.hpp"
#include "../launch.hpp"

namespace ufunc::detail {

/// A launch grid of (x, y, z) blocks, each clamped to the hardware limits; the
/// kernels loop over what does not fit (grid-stride in each dimension).
inline dim3 linalg_grid(index_t x, index_t y, index_t z) {
  auto clamp = [](index_t v, index_t hi) { return static_cast<unsigned>(std::max<index_t>(1, std::min(v, hi))); };
  return dim3(clamp(x, 0x7fffffff), clamp(y, 65535), clamp(z, 65535));
}

// Named helpers rather than unqualified min/max: inside namespace ufunc those
// names find ufunc's reduction objects (ufunc::min, ufunc::max), not CUDA's.
UFUNC_HD inline index_t imin(index_t a, index_t b) { return a < b ? a : b; }
UFUNC_HD inline index_t imax(index_t a, index_t b) { return a > b ? a : b; }
UFUNC_HD inline int imin32(int a, int b) { return a < b ? a : b; }
UFUNC_HD inline int imax32(int a, int b) { return a > b ? a : b; }

using cuda_launch::is_aligned;

}  // namespace ufunc::detail
