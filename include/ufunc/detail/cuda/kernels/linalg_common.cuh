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

// Named helpers rather than unqualified min/max: inside namespace ufunc those
// names find ufunc's reduction objects (ufunc::min, ufunc::max), not CUDA's.
UFUNC_HD inline index_t imin(index_t a, index_t b) { return a < b ? a : b; }
UFUNC_HD inline index_t imax(index_t a, index_t b) { return a > b ? a : b; }
UFUNC_HD inline int imin32(int a, int b) { return a < b ? a : b; }
UFUNC_HD inline int imax32(int a, int b) { return a > b ? a : b; }

using cuda_launch::is_aligned;

}  // namespace ufunc::detail
