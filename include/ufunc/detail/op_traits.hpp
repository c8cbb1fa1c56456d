// What ops.hpp's operations are built from: NumPy's NaN-propagating extremum,
// and whether an operation declares an identity.
#pragma once

#include <cuda/std/type_traits>

#include "../config.hpp"
#include "element.hpp"  // is_nan

namespace ufunc::detail {
/// numpy.minimum / numpy.maximum: NaN if either is NaN, else the smaller (Max:
/// larger) of a and b, a when they compare equal.
template <bool Max>
struct extremum {
  template <class A, class B>
  UFUNC_HD constexpr auto operator()(const A& a, const B& b) const
      noexcept(noexcept(is_nan(a)) && noexcept(is_nan(b)) && noexcept(a < b) && noexcept(b < a)) {
    using R = cuda::std::common_type_t<A, B>;
    if (is_nan(a)) return static_cast<R>(a);
    if (is_nan(b)) return static_cast<R>(b);
    return (Max ? a < b : b < a) ? static_cast<R>(b) : static_cast<R>(a);
  }
};
/// True when Op declares `identity<T>()`.
template <class Op, class T, class = void>
struct has_identity : cuda::std::false_type {};
template <class Op, class T>
struct has_identity<Op, T, cuda::std::void_t<decltype(Op::template identity<T>())>> : cuda::std::true_type {};
}  // namespace ufunc::detail
