// Host backend of parallel_for: the linearised index space cut into chunks that
// OpenMP threads take (parallel.hpp). An exception thrown by the body (e.g. a
// UFUNC_DEBUG bounds error) reaches the caller: the one from the lowest failing
// index (what a serial loop would throw, whatever the thread count or timing).
#pragma once


#include <algorithm>
#include <cstddef>

#include "../../config.hpp"
#include "../../launch_config.hpp"
#include "../launch_check.hpp"
#include "../../stream.hpp"
#include "parallel.hpp"

namespace ufunc::detail::host {

struct parallel_for_tuning {
  /// Chunks per OpenMP thread: enough to balance bodies of uneven cost.
  static constexpr index_t chunks_per_thread = 8;
  /// Upper bound on indices per chunk (bounds scheduling granularity for large spaces).
  static constexpr index_t max_chunk = index_t(1) << 14;
};

/// Calls f on the row-major indices [begin, end) of an R-D space.
template <int R, class F>
void run_range(const F& f, const index_t* dims, index_t begin, index_t end) {
  using sz = std::size_t;
  if constexpr (R == 1) {
    for (index_t t = begin; t < end; ++t) f(static_cast<sz>(t));
  } else if constexpr (R == 2) {
    index_t i = begin / dims[1], j = begin % dims[1];
    for (index_t t = begin; t < end; ++t) {
      f(static_cast<sz>(i), static_cast<sz>(j));
      if (++j == dims[1]) {
        j = 0;
        ++i;
      }
    }
  } else {
    static_assert(R == 3, "parallel_for: 1 to 3 dimensions");
    index_t k = begin % dims[2], r = begin / dims[2];
    index_t j = r % dims[1], i = r / dims[1];
    for (index_t t = begin; t < end; ++t) {
      f(static_cast<sz>(i), static_cast<sz>(j), static_cast<sz>(k));
      if (++k == dims[2]) {
        k = 0;
        if (++j == dims[1]) {
          j = 0;
          ++i;
        }
      }
    }
  }
}

/// Runs f over the R-D space `dims` of n > 0 indices on all OpenMP threads.
template <int R, class F>
void parallel_for(const F& f, const index_t* dims, index_t n) {
  using tune = parallel_for_tuning;
  const index_t want = static_cast<index_t>(parallel_slots()) * tune::chunks_per_thread;
  const index_t chunk = std::clamp<index_t>((n + want - 1) / want, 1, tune::max_chunk);
  const index_t nchunks = (n + chunk - 1) / chunk;
  // Chunks in row-major order, each walked in order: parallel_n rethrows the
  // serially first error.
  parallel_n(nchunks, [&](index_t c) { run_range<R>(f, dims, c * chunk, std::min(n, (c + 1) * chunk)); });
}

}  // namespace ufunc::detail::host

namespace ufunc::detail {

template <class Target>
struct parallel_for_backend;

template <>
struct parallel_for_backend<target::host> {
  // The host schedules its own chunks; a launch configuration only has to be valid.
  template <int R, class F>
  static void run(const F& f, const std::array<index_t, 3>& dims, index_t n, checked_launch, stream_ref) {
    host::parallel_for<R>(f, dims.data(), n);
  }
};

}  // namespace ufunc::detail
