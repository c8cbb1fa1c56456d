// Helpers shared by the matmul and transpose launchers and kernels.
#pragma once

#include <algorithm>
#include <cstring>

#include "../../../config.hpp"
#include "../../../error.hpp"
#include "../../../stream.hpp"
#include "../../linalg_plan.hpp"
#include "../launch.hpp"

namespace ufunc::detail {

/// A launch grid of (x, y, z) blocks, each clamped to the hardware limits; the
/// kernels loop over what does not fit (grid-stride in each dimension).
inline dim3 linalg_grid(index_t x, index_t y, index_t z) {
  auto clamp = [](index_t v, index_t hi) { return static_cast<unsigned>(std::max<index_t>(1, std::min(v, hi))); };
  return dim3(clamp(x, 0x7fffffff), clamp(y, 65535), clamp(z, 65535));
}

/// Launches a copy kernel over the copy cut into ti x tj tiles (one z slice per
/// batch entry), `block` threads per tile.
template <class Kernel>
void launch_tiles(Kernel kernel, const char* name, const copy_args& p, index_t ti, index_t tj, dim3 block,
                  stream_ref s) {
  kernel<<<linalg_grid((p.ni + ti - 1) / ti, (p.nj + tj - 1) / tj, p.batch.count), block, 0, s.get()>>>(p);
  UFUNC_CHECK_LAUNCH(name, s.get());
}

// Named helpers rather than unqualified min/max: inside namespace ufunc those
// names find ufunc's reduction objects (ufunc::min, ufunc::max), not CUDA's.
UFUNC_HD inline index_t imin(index_t a, index_t b) { return a < b ? a : b; }
UFUNC_HD inline index_t imax(index_t a, index_t b) { return a > b ? a : b; }
UFUNC_HD inline int imin32(int a, int b) { return a < b ? a : b; }
UFUNC_HD inline int imax32(int a, int b) { return a > b ? a : b; }

using cuda_launch::is_aligned;

}  // namespace ufunc::detail
