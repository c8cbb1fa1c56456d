// ufunc::searchsorted: NumPy's np.searchsorted, a binary search per value over
// a sorted 1-D array, one parallel_for over the values on either backend.
#pragma once

#include <string>
#include <type_traits>

#include "array.hpp"
#include "array_view.hpp"
#include "config.hpp"
#include "detail/arg_traits.hpp"
#include "detail/element.hpp"  // is_nan
#include "error.hpp"
#include "parallel_for.hpp"
#include "shape.hpp"
#include "stream.hpp"

namespace ufunc {

/// Which of equal elements an inserted value goes before (left) or after (right).
enum class side { left, right };

/// The insertion points of a sorted sequence (ufunc::searchsorted).
template <class T, class V, class Target>
struct sorted_search {
  array_view<const T, Target> a;
  array_view<const V, Target> v;
  index_t* out;
  bool right;
  /// a < b with NaNs after every number (NumPy's sort order).
  template <class X, class Y>
  static UFUNC_HD bool less(const X& x, const Y& y) {
    if (detail::is_nan(y)) return !detail::is_nan(x);
    return x < y;
  }
  UFUNC_HD void operator()(std::size_t i) const {
    const V x = v[static_cast<index_t>(i)];
    index_t lo = 0, hi = a.shape()[0];
    while (lo < hi) {  // the first k with a[k] >= x (left) or a[k] > x (right)
      const index_t mid = lo + (hi - lo) / 2;
      const bool go_right = right ? !less(x, a(mid)) : less(a(mid), x);
      if (go_right) lo = mid + 1;
      else hi = mid;
    }
    out[i] = lo;
  }
};

/// NumPy's `np.searchsorted(a, v, side)`: for each element of v, the index at
/// which inserting it keeps the 1-D array `a` sorted: the first such index
/// (side::left: a[i-1] < v <= a[i]) or the last (side::right: a[i-1] <= v < a[i]).
/// `a` must be sorted ascending with NaNs last, as ufunc and NumPy sort
/// (otherwise the result is unspecified, as NumPy's); any strides. Returns an
/// index_t array of v's shape on their target (both in one target's memory).
/// Enqueued on the stream. Throws shape_error when `a` is not 1-D.
template <class A, class V>
auto searchsorted(const A& a, const V& v, side s = side::left, stream_ref st = {}) {
  using BA = detail::arg_traits<detail::bare_t<A>>;
  using BV = detail::arg_traits<detail::bare_t<V>>;
  static_assert(BA::is_array && BV::is_array, "ufunc::searchsorted: a and v are arrays or views");
  using Target = typename BA::target_type;
  static_assert(std::is_same_v<Target, typename BV::target_type>,
                "ufunc::searchsorted: a and v must live in the same target's memory");
  using T = typename BA::value_type;
  using W = typename BV::value_type;
  const array_view<const T, Target> av(a.view());
  const array_view<const W, Target> vv(v.view());
  if (av.ndim() != 1)
    throw shape_error("ufunc::searchsorted: a must be 1-D (a sorted sequence), not of shape " + av.shape().str());
  array<index_t, Target> out(vv.shape(), st);
  if (out.size() > 0)
    parallel_for<Target>(static_cast<std::size_t>(out.size()),
                         sorted_search<T, W, Target>{av, vv, out.data(), s == side::right}, st);
  return out;
}

}  // namespace ufunc
