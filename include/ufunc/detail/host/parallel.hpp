// The one place the host backend starts OpenMP threads: body(i) for i in [0, n)
// as an `omp parallel for` (static schedule: callers cut their work into chunks
// sized for balance). A plain pragma rather than Thrust's OMP system: the same
// loop, without parsing Thrust's OMP headers in every translation unit (about
// 10% of a call site's nvcc time).
#pragma once

#include "../../config.hpp"

namespace ufunc::detail::host {

/// Calls body(i) for every i in [0, n) on the OpenMP threads; n <= 1 runs on the
/// caller's thread. Exceptions must not leave body (they cannot cross an OpenMP
/// region): callers that need them catch inside and rethrow after.
template <class Body>
void parallel_n(index_t n, const Body& body) {
  if (n <= 0) return;
  if (n == 1) {
    body(index_t(0));
    return;
  }
#pragma omp parallel for schedule(static)
  for (index_t i = 0; i < n; ++i) body(i);
}

}  // namespace ufunc::detail::host
