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

/// Lets a call convert its result into an `out` of any element type (NumPy's
/// `casting="unsafe"`): `f(x, ufunc::out(i), ufunc::unsafe_cast)`. Without it an
/// `out` must follow NumPy's `same_kind` rule (float into double or float, an
/// integer into a wider or narrower one or into floating point; not floating
/// point into an integer), else the call throws `ufunc::type_error` naming both
/// types. Conversions C++ leaves undefined are defined here: floating point
/// into an integer truncates toward zero, NaN becomes 0, and values beyond the
/// integer's range (+/-inf too) saturate to its min/max.
struct unsafe_cast_t {};
inline constexpr unsafe_cast_t unsafe_cast{};

namespace detail {
template <class A>
struct is_out : std::false_type {};
template <class... V>
struct is_out<out_t<V...>> : std::true_type {};

template <class A>
auto out_view(A&& a) {
  using B = bare_t<A>;
  static_assert(arg_traits<B>::is_array || is_sharded<B>::value || is_foreign_v<B>,
                "ufunc::out: takes arrays or array views");
  if constexpr (is_foreign_v<B>) {  // a Thrust vector: its view (interop.hpp)
    static_assert(std::is_lvalue_reference_v<A> && !std::is_const_v<std::remove_reference_t<A>>,
                  "ufunc::out: pass a non-const Thrust vector lvalue");
    return adapt(a);
  } else if constexpr (is_sharded<B>::value) {  // a sharded call writes each shard (sharded.hpp)
    static_assert(std::is_lvalue_reference_v<A> && !std::is_const_v<std::remove_reference_t<A>>,
                  "ufunc::out: pass a non-const sharded_array lvalue");
    return sharded_out<B>{&a};
  } else if constexpr (is_view<B>::value) {
    static_assert(!std::is_const_v<typename B::element_type>, "ufunc::out: a view of const elements cannot be written");
    return B(a);
  } else {
    static_assert(std::is_lvalue_reference_v<A> && !std::is_const_v<std::remove_reference_t<A>>,
                  "ufunc::out: pass a non-const array lvalue (or a view)");
    return a.view();
  }
}
/// An `out(...)` argument naming sharded arrays (sharded.hpp runs such calls).
template <class B>
struct has_sharded_out : std::false_type {};
template <class... V>
struct has_sharded_out<out_t<V...>> : std::bool_constant<(is_sharded_out<V>::value || ...)> {};
template <class A>
constexpr bool sharded_out_arg() {
  return has_sharded_out<bare_t<A>>::value;
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
