// ufunc::transpose: axis permutations of N-d arrays (numpy.transpose), as a
// copy into a new contiguous array or into an `out` view.
#pragma once

#include <initializer_list>
#include <tuple>
#include <vector>

#include "array.hpp"
#include "detail/call.hpp"         // arguments, controls, out checks
#include "detail/linalg.hpp"       // registry, copy_view
#include "detail/linalg_plan.hpp"  // normalize_axes
#include "detail/signature.hpp"    // failed_call
#include "expression.hpp"
#include "linalg_variants.hpp"
#include "detail/trace.hpp"
#include "detail/transpose_call.hpp"  // its pieces (detail::)

namespace ufunc {

/// numpy.transpose: the array with its axes permuted, as a new contiguous array
/// (or written into `ufunc::out(y)`, which must have exactly the permuted shape
/// and must not overlap x; the view is returned). Without `axes` the axes are
/// reversed (the matrix transpose for 2-D); with `axes`, result axis k is x's
/// axis axes[k] (negative values count from the end); anything but a
/// permutation of x's axes throws shape_error. Any element type (copied as raw
/// bytes: 1, 2, 4, 8, 16-byte elements and odd sizes) and any strides.
/// Optional trailing arguments, in any order: `ufunc::out(y)`, a
/// `ufunc::transpose_variant` (default `fastest`), a stream. Asynchronous on the
/// stream (the host target runs synchronously).
///
/// The copy is planned on the host: dims are merged where both sides are
/// contiguous, and when the source's and the destination's fastest dims
/// differ the tile kernel of the chosen variant swaps them; when they coincide
/// (e.g. the identity permutation of a strided view) no variant applies and a
/// strided row copy runs; contiguous blocks are one memory copy.
/// `ufunc::array_view::transposed()` / `permuted()` give the same result as a
/// view, without copying.
template <class X, class... Rest, std::enable_if_t<((detail::control_of<Rest>() != detail::not_control) && ...), int> = 0>
auto transpose(const X& x, Rest&&... rest) {
  if constexpr (detail::is_foreign_v<X>) return transpose(detail::adapt(x), std::forward<Rest>(rest)...);
  else return detail::transpose_impl(x, nullptr, std::forward<Rest>(rest)...);
}

/// transpose with an explicit permutation: `ufunc::transpose(x, {1, 0, 2})`.
template <class X, class... Rest>
auto transpose(const X& x, const std::vector<int>& axes, Rest&&... rest) {
  if constexpr (detail::is_foreign_v<X>) return transpose(detail::adapt(x), axes, std::forward<Rest>(rest)...);
  else return detail::transpose_impl(x, &axes, std::forward<Rest>(rest)...);
}
template <class X, class... Rest>
auto transpose(const X& x, std::initializer_list<int> axes, Rest&&... rest) {
  const std::vector<int> v(axes);
  return detail::transpose_impl(x, &v, std::forward<Rest>(rest)...);
}

/// The transpose variants available on `Target`, slowest first (CUDA: naive,
/// tiled, optimized; host: blocked). Tests and benchmarks iterate this list.
template <class Target = target::device>
std::vector<transpose_variant> transpose_variants() {
  return detail::as_vector(detail::linalg_registry<Target>::transpose_variants);
}

}  // namespace ufunc
