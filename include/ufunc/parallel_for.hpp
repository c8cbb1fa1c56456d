// ufunc::parallel_for: a function of 1, 2 or 3 indices run over an index space,
// the portable and checked alternative to writing a __global__ kernel.
#pragma once

#include <array>
#include <climits>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "config.hpp"
#include "launch_config.hpp"
#include "detail/call.hpp"
#include "detail/parallel_for.hpp"
#include "detail/trace.hpp"
#include "error.hpp"
#include "shape.hpp"
#include "stream.hpp"
#include "detail/parallel_for_call.hpp"  // its pieces (detail::)

namespace ufunc {

/// Calls `f(i)` for every i in [0, n), or `f(i, j)` / `f(i, j, k)` for every
/// multi-index of a 2-D / 3-D `space` (`ufunc::shape{rows, cols}`), in parallel on
/// `Target` (the build's device by default; `ufunc::target::host` runs on all host
/// cores with OpenMP in every build). Indices are `std::size_t`; `f` is a
/// `UFUNC_HD` lambda or function object, copied to the device, that captures
/// what it works on by value (views: `auto v = a.view();`). No order between
/// calls is guaranteed: two calls writing the same element race unless they use
/// the atomics of `ufunc/atomic.hpp`.
///
/// After `f`, optionally an explicit `ufunc::launch_config{blocks, threads}`
/// (otherwise the CUDA occupancy API picks the block size and enough blocks to
/// fill the device once, and a grid-stride loop covers the rest) and a stream
/// (`ufunc::stream`, `stream_ref`, `cudaStream_t` or `cuda::stream_ref`), in either order. On the CUDA
/// target the call is asynchronous: it returns once the kernel is enqueued on the
/// stream. On the host target it returns when done; an exception thrown by `f`
/// (e.g. a UFUNC_DEBUG bounds error) stops the remaining work and is rethrown here:
/// the one a serial row-major loop would meet first, whatever the thread count
/// (other indices may have run meanwhile). What `f` wrote stays written: this is
/// not a ufunc call, and has no `out` to keep (device code cannot throw).
///
/// Throws `shape_error` for a negative extent, an index space of rank 0 or above 3,
/// or a function that does not take one index per dimension, and `value_error` for
/// a launch configuration out of range, all before anything runs. An empty space
/// (an extent of 0) runs nothing.
template <class Target = target::device, class F, class... Ctl>
void parallel_for(const shape& space, F&& f, Ctl&&... ctl) {
  detail::parallel_for_impl<Target>(space, std::forward<F>(f), std::forward<Ctl>(ctl)...);
}

/// The 1-D form: `parallel_for(n, [=] UFUNC_HD (std::size_t i) { ... })`.
template <class Target = target::device, class Int, class F, class... Ctl,
          std::enable_if_t<std::is_integral_v<Int> && !std::is_same_v<Int, bool>, int> = 0>
void parallel_for(Int n, F&& f, Ctl&&... ctl) {
  if constexpr (std::is_signed_v<Int>) {
    if (n < 0) throw shape_error("parallel_for: negative extent " + std::to_string(n));
  } else if constexpr (sizeof(Int) >= sizeof(index_t)) {
    if (n > static_cast<std::make_unsigned_t<index_t>>(INT64_MAX))
      throw shape_error("parallel_for: extent " + std::to_string(n) + " exceeds the largest index (2^63 - 1)");
  }
  detail::parallel_for_impl<Target>(shape(static_cast<index_t>(n)), std::forward<F>(f), std::forward<Ctl>(ctl)...);
}

}  // namespace ufunc
