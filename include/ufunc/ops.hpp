// Built-in binary operations for reductions, each with its identity.
#pragma once

#include <cuda/std/limits>
#include <cuda/std/type_traits>

#include "config.hpp"
#include "detail/element.hpp"  // is_nan, identities of minimum/maximum
#include "detail/op_traits.hpp"  // extremum, has_identity (detail::)

namespace ufunc {


/// The binary operations below are function objects with a template call operator
/// (they work on every arithmetic type and on both backends; `noexcept` where the
/// element types' operators are, so a reduction with them writes `out` in place
/// on the host) and a static
/// `identity<T>()`: the value `e` with `op(e, x) == x`. A reduction uses it as the
/// result of an empty input and as its starting value. Ops given to a reduction must
/// be associative and commutative (the parallel order is unspecified).

/// a + b; identity 0.
struct plus {
  template <class A, class B>
  UFUNC_HD constexpr auto operator()(const A& a, const B& b) const noexcept(noexcept(a + b)) { return a + b; }
  template <class T>
  static UFUNC_HD constexpr T identity() { return T(0); }
};

/// a * b; identity 1.
struct multiplies {
  template <class A, class B>
  UFUNC_HD constexpr auto operator()(const A& a, const B& b) const noexcept(noexcept(a * b)) { return a * b; }
  template <class T>
  static UFUNC_HD constexpr T identity() { return T(1); }
};


/// The smaller of a and b; NaN if either is NaN (as numpy.minimum). Identity: +inf
/// for floating point, the largest value for integers.
struct minimum : detail::extremum<false> {
  template <class T>
  static UFUNC_HD constexpr T identity() { return detail::element_traits<T>::highest(); }
};

/// The larger of a and b; NaN if either is NaN (as numpy.maximum). Identity: -inf
/// for floating point, the smallest value for integers.
struct maximum : detail::extremum<true> {
  template <class T>
  static UFUNC_HD constexpr T identity() { return detail::element_traits<T>::lowest(); }
};

/// a && b (as bool); identity true.
struct logical_and {
  template <class A, class B>
  UFUNC_HD constexpr bool operator()(const A& a, const B& b) const noexcept(noexcept(static_cast<bool>(a)) && noexcept(static_cast<bool>(b))) {
    return static_cast<bool>(a) && static_cast<bool>(b);
  }
  template <class T>
  static UFUNC_HD constexpr T identity() { return T(true); }
};

/// a || b (as bool); identity false.
struct logical_or {
  template <class A, class B>
  UFUNC_HD constexpr bool operator()(const A& a, const B& b) const noexcept(noexcept(static_cast<bool>(a)) && noexcept(static_cast<bool>(b))) {
    return static_cast<bool>(a) || static_cast<bool>(b);
  }
  template <class T>
  static UFUNC_HD constexpr T identity() { return T(false); }
};

/// a & b (integers); identity all bits set.
struct bit_and {
  template <class A, class B>
  UFUNC_HD constexpr auto operator()(const A& a, const B& b) const noexcept(noexcept(a & b)) { return a & b; }
  template <class T>
  static UFUNC_HD constexpr T identity() { return static_cast<T>(~T(0)); }
};

/// a | b (integers); identity 0.
struct bit_or {
  template <class A, class B>
  UFUNC_HD constexpr auto operator()(const A& a, const B& b) const noexcept(noexcept(a | b)) { return a | b; }
  template <class T>
  static UFUNC_HD constexpr T identity() { return T(0); }
};

/// a ^ b (integers); identity 0.
struct bit_xor {
  template <class A, class B>
  UFUNC_HD constexpr auto operator()(const A& a, const B& b) const noexcept(noexcept(a ^ b)) { return a ^ b; }
  template <class T>
  static UFUNC_HD constexpr T identity() { return T(0); }
};


}  // namespace ufunc
