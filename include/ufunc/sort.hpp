// ufunc::sort, argsort, topk and unique: NumPy's np.sort / np.argsort
// (kind="stable"), torch.topk and np.unique (with NumPy 2's unique_counts,
// unique_inverse and unique_all), along any axis of any view, on either
// backend (CUB's radix sorts on CUDA, std::stable_sort per row on the host).
// docs/sort.md has the order, the algorithms and the memory they need.
#pragma once

#include <string>
#include <type_traits>

#include "array.hpp"
#include "array_view.hpp"
#include "axis.hpp"
#include "config.hpp"
#include "detail/arg_traits.hpp"
#include "detail/element.hpp"
#include "detail/sort.hpp"
#include "error.hpp"
#include "shape.hpp"
#include "stream.hpp"

namespace ufunc {

/// The result of ufunc::topk: the k chosen values along the axis, sorted, and
/// their indices along it (x's shape with extent k there).
template <class T, class Target>
struct topk_result {
  array<T, Target> values;
  array<index_t, Target> indices;
};
/// ufunc::unique_counts: the sorted distinct values and how often each occurs.
template <class T, class Target>
struct unique_counts_result {
  array<T, Target> values;
  array<index_t, Target> counts;
};
/// ufunc::unique_inverse: the sorted distinct values and, for each element of
/// x (x's shape), the index of its value: `values[inverse_indices] == x`.
template <class T, class Target>
struct unique_inverse_result {
  array<T, Target> values;
  array<index_t, Target> inverse_indices;
};
/// ufunc::unique_all: values, the flat index of each value's first occurrence
/// in x, the inverse indices (x's shape) and the counts.
template <class T, class Target>
struct unique_all_result {
  array<T, Target> values;
  array<index_t, Target> indices;
  array<index_t, Target> inverse_indices;
  array<index_t, Target> counts;
};

/// NumPy's `np.sort(x, axis, kind="stable")`: a new array of x's shape and type
/// on x's target, each row along `axis` (negative: from the end) ascending with
/// NaNs last; -0.0 and +0.0 equal (kept in input order). Any strides. Every NaN
/// comes out as the type's quiet NaN. Enqueued on the stream; x must stay alive
/// until the work is done. Throws shape_error for an axis out of range (a 0-d x
/// has none, as in NumPy) before anything is enqueued.
template <class X>
auto sort(const X& x, int axis = -1, stream_ref s = {}) {
  const auto v = detail::sort_input(x);
  return detail::sort_values(v, detail::sort_axis("ufunc::sort", axis, v.shape()), s);
}
template <class X>
auto sort(const X& x, ufunc::axis a, stream_ref s = {}) { return ufunc::sort(x, a.value, s); }
template <class X>
auto sort(const X& x, stream_ref s) { return ufunc::sort(x, -1, s); }

/// NumPy's `np.argsort(x, axis, kind="stable")`: index_t positions along `axis`
/// that sort each row as ufunc::sort does (equal keys, -0.0/+0.0 and NaNs keep
/// their input order). x's shape, on x's target; as sort otherwise, except that a
/// 0-d x is taken as 1-D, as np.argsort does (the result is the 1-D array {0}).
template <class X>
auto argsort(const X& x, int axis = -1, stream_ref s = {}) {
  auto v = detail::sort_input(x);
  if (v.ndim() == 0) v = decltype(v)(v.data(), shape(1));  // as NumPy: a 0-d x argsorts as 1-D
  return detail::argsort_indices(v, detail::sort_axis("ufunc::argsort", axis, v.shape()), s);
}
template <class X>
auto argsort(const X& x, ufunc::axis a, stream_ref s = {}) { return ufunc::argsort(x, a.value, s); }
template <class X>
auto argsort(const X& x, stream_ref s) { return ufunc::argsort(x, -1, s); }

/// torch.topk: the k largest (`largest`, the default) or smallest elements of
/// each row along `axis`, sorted (largest first, or smallest first), ties to the
/// lower index first, NaN the largest value (NumPy's sort order). A topk_result
/// of x's shape with extent k along the axis. Cost: a full stable sort of every
/// row on the GPU, a partial sort on the host for small k (docs/sort.md). Throws shape_error for a bad axis and value_error unless
/// 0 <= k <= the axis' extent, before anything is enqueued; as sort otherwise.
template <class X>
auto topk(const X& x, index_t k, int axis = -1, bool largest = true, stream_ref s = {}) {
  const auto v = detail::sort_input(x);
  const int a = detail::sort_axis("ufunc::topk", axis, v.shape());
  if (k < 0 || k > v.shape()[a])
    throw value_error("ufunc::topk: k = " + std::to_string(k) + " is not in [0, " + std::to_string(v.shape()[a]) +
                      "] (the extent of axis " + std::to_string(axis) + " of shape " + v.shape().str() + ")");
  auto r = detail::topk_along(v, k, a, largest, s);
  return topk_result<detail::sort_value_t<X>, detail::sort_target_t<X>>{std::move(r.values), std::move(r.indices)};
}
template <class X>
auto topk(const X& x, index_t k, ufunc::axis a, bool largest = true, stream_ref s = {}) {
  return ufunc::topk(x, k, a.value, largest, s);
}

/// NumPy's `np.unique(x)` (np.unique_values): the sorted distinct elements of x
/// (flattened; any shape, 0-d included) as a 1-D array on x's target, NaNs
/// collapsed into one (NumPy's equal_nan=True) and -0.0/+0.0 into one. The
/// result's size depends on the data: the call waits for the stream (as a
/// to_host does) before it returns.
template <class X>
auto unique(const X& x, stream_ref s = {}) {
  return detail::unique_along(detail::sort_input(x), false, false, false, s).values;
}
/// NumPy's `np.unique_counts(x)` (np.unique(x, return_counts=True)): as unique,
/// with how often each value occurs (index_t).
template <class X>
auto unique_counts(const X& x, stream_ref s = {}) {
  auto u = detail::unique_along(detail::sort_input(x), false, false, true, s);
  return unique_counts_result<detail::sort_value_t<X>, detail::sort_target_t<X>>{std::move(u.values),
                                                                                  std::move(u.counts)};
}
/// NumPy's `np.unique_inverse(x)` (np.unique(x, return_inverse=True)): as
/// unique, with the index into values of each element of x, in x's shape.
template <class X>
auto unique_inverse(const X& x, stream_ref s = {}) {
  auto u = detail::unique_along(detail::sort_input(x), false, true, false, s);
  return unique_inverse_result<detail::sort_value_t<X>, detail::sort_target_t<X>>{std::move(u.values),
                                                                                    std::move(u.inverse)};
}
/// NumPy's `np.unique_all(x)`: values, first-occurrence indices (into the
/// flattened x), inverse indices (x's shape) and counts.
template <class X>
auto unique_all(const X& x, stream_ref s = {}) {
  auto u = detail::unique_along(detail::sort_input(x), true, true, true, s);
  return unique_all_result<detail::sort_value_t<X>, detail::sort_target_t<X>>{
      std::move(u.values), std::move(u.indices), std::move(u.inverse), std::move(u.counts)};
}

}  // namespace ufunc
