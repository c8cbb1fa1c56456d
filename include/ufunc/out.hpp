// ufunc::out: names the output arrays of a call. A vocabulary header: the
// argument type only; every operation reads it through the call front end.
#pragma once

#include <tuple>
#include <type_traits>
#include <utility>

#include "detail/arg_traits.hpp"
#include "detail/out_args.hpp"  // out entries as the front end reads them (detail::)

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
