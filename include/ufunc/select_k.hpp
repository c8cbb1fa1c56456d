// ufunc::argmin_k, argmax_k, min_k and max_k: the K smallest or largest values
// along one axis of a lazy expression (or an array or view) and their indices,
// as torch.topk / ufunc::topk give them, with K a compile-time constant up to
// 64 (KeOps' argKmin / Kmin). The expression is never evaluated into memory:
// `ufunc::argmin_k<16>(dist2.lazy(vec<3>(X), vec<3>(Y)), ufunc::axis(1))` is
// the 16 nearest neighbours of every x_i among N x M pairs with no N x M
// array. docs/pairwise.md has the order, the kernels and the memory they need.
#pragma once

#include <utility>

#include "axis.hpp"
#include "config.hpp"
#include "detail/select_k.hpp"
#include "sort.hpp"  // topk_result
#include "stream.hpp"

namespace ufunc {

/// The indices (index_t) of the K smallest values along `axis` (negative: from
/// the end) of x, a lazy expression, an array or a view: x's shape with extent
/// K along the axis, each row sorted as `topk(evaluate(x), K, axis, false)`
/// sorts it (ascending, NaN last; equal values, -0.0 and +0.0 or two NaNs, by
/// the lower index), and equal to its indices. 1 <= K <= 64 (compile time).
/// Throws shape_error for a bad axis (a 0-d x has none) and value_error when K
/// is more than the axis' extent, before anything is enqueued. Enqueued on the
/// stream; x's arrays must stay alive until the stream has run it. Memory: the
/// result, and on the GPU at most tens of MB of partial lists when there are
/// few outputs (docs/pairwise.md); never x's full shape.
template <int K, class X>
auto argmin_k(X&& x, int axis = -1, stream_ref s = {}) {
  return std::move(detail::select_k_call<K, false>("ufunc::argmin_k", std::forward<X>(x), axis, false, s).indices);
}
template <int K, class X>
auto argmin_k(X&& x, ufunc::axis a, stream_ref s = {}) {
  return ufunc::argmin_k<K>(std::forward<X>(x), a.value, s);
}

/// The indices of the K largest values along `axis`: as argmin_k, in topk's
/// descending order (NaN first, as the largest value; ties by the lower index).
template <int K, class X>
auto argmax_k(X&& x, int axis = -1, stream_ref s = {}) {
  return std::move(detail::select_k_call<K, true>("ufunc::argmax_k", std::forward<X>(x), axis, false, s).indices);
}
template <int K, class X>
auto argmax_k(X&& x, ufunc::axis a, stream_ref s = {}) {
  return ufunc::argmax_k<K>(std::forward<X>(x), a.value, s);
}

/// The K smallest values along `axis` and their indices, as a topk_result
/// (`.values`, of x's element type, and `.indices`): `topk(evaluate(x), K,
/// axis, false)` without the evaluation. NaNs come out as the type's quiet NaN.
template <int K, class X>
auto min_k(X&& x, int axis = -1, stream_ref s = {}) {
  auto r = detail::select_k_call<K, false>("ufunc::min_k", std::forward<X>(x), axis, true, s);
  using R = decltype(r);
  return topk_result<typename R::value_type, typename R::target_type>{std::move(r.values), std::move(r.indices)};
}
template <int K, class X>
auto min_k(X&& x, ufunc::axis a, stream_ref s = {}) {
  return ufunc::min_k<K>(std::forward<X>(x), a.value, s);
}

/// The K largest values along `axis` and their indices: `topk(evaluate(x), K,
/// axis, true)` without the evaluation.
template <int K, class X>
auto max_k(X&& x, int axis = -1, stream_ref s = {}) {
  auto r = detail::select_k_call<K, true>("ufunc::max_k", std::forward<X>(x), axis, true, s);
  using R = decltype(r);
  return topk_result<typename R::value_type, typename R::target_type>{std::move(r.values), std::move(r.indices)};
}
template <int K, class X>
auto max_k(X&& x, ufunc::axis a, stream_ref s = {}) {
  return ufunc::max_k<K>(std::forward<X>(x), a.value, s);
}

}  // namespace ufunc
