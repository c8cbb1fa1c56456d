// parallel_for dispatch: a validated index space and launch configuration run
// on the target's backend (host/parallel_for.hpp: OpenMP chunks;
// cuda/parallel_for.hpp: the grid-stride kernel).
#pragma once

#include <array>

#include "../config.hpp"
#include "../launch_config.hpp"
#include "launch_check.hpp"
#include "../stream.hpp"
#include "host/parallel_for.hpp"

#include UFUNC_CUDA_BACKEND("cuda/parallel_for.hpp")

namespace ufunc::detail {

/// Runs f over an R-D index space (n = product of dims > 0) on Target.
/// Validation is the caller's job.
template <class Target, int R, class F>
void run_parallel_for(const F& f, const std::array<index_t, 3>& dims, index_t n, checked_launch cfg, stream_ref s) {
  parallel_for_backend<Target>::template run<R>(f, dims, n, cfg, s);
}

}  // namespace ufunc::detail
