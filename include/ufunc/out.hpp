// ufunc::out: names the output arrays of a call. A vocabulary header: the
// argument type only; every operation reads it through the call front end.
#pragma once

#include <tuple>
#include <type_traits>
#include <utility>

#include "detail/arg_traits.hpp"

namespace ufunc {

/// Output views for a call, made by `ufunc::out(...)`.
template <class... V>
struct out_t {
  std::tuple<V...> views;
};

namespace detail {
template <class A>
struct is_out : std::false_type {};
template <class... V>
struct is_out<out_t<V...>> : std::true_type {};

template <class A>
auto out_view(A&& a) {
  using B = bare_t<A>;
  static_assert(arg_traits<B>::is_array, "ufunc::out: takes arrays or array views");
  if constexpr (is_view<B>::value) {
    static_assert(!std::is_const_v<typename B::element_type>, "ufunc::out: a view of const elements cannot be written");
    return B(a);
  } else {
    static_assert(std::is_lvalue_reference_v<A> && !std::is_const_v<std::remove_reference_t<A>>,
                  "ufunc::out: pass a non-const array lvalue (or a view)");
    return a.view();
  }
}
}  // namespace detail

/// Names the output(s) of a call: `f(x, y, ufunc::out(z))`, or
/// `ufunc::out(a, b)` for a function with two outputs (one `out` per call).
/// Takes non-const arrays or views; the result is written there instead of a new
/// array. An output may be exactly one of the inputs (in-place, elementwise calls)
/// but may not share any element with an input otherwise; views that interleave
/// without sharing one (two column blocks of one matrix) are fine.
template <class... A>
auto out(A&&... a) {
  static_assert(sizeof...(A) >= 1, "ufunc::out: give at least one array");
  return out_t<decltype(detail::out_view(std::forward<A>(a)))...>{std::make_tuple(detail::out_view(std::forward<A>(a))...)};
}

}  // namespace ufunc
