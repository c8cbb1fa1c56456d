// Built-in binary operations for reductions, each with its identity.
#pragma once

#include <cuda/std/limits>
#include <cuda/std/type_traits>

#include "config.hpp"

namespace ufunc {

namespace detail {
/// NaN test usable on every arithmetic type (false for integers and bool).
template <class T>
UFUNC_HD constexpr bool is_nan(const T& v) {
  if constexpr (cuda::std::is_floating_point_v<T>)
    return v != v;
  else
    return false;
}
}  // namespace detail

/// The binary operations below are function objects with a template call operator
/// (they work on every arithmetic type and on both backends) and a static
/// `identity<T>()`: the value `e` with `op(e, x) == x`. A reduction uses it as the
/// result of an empty input and as its starting value. Ops given to a reduction must
/// be associative and commutative (the parallel order is unspecified).

/// a + b; identity 0.
struct plus {
  template <class A, class B>
  UFUNC_HD constexpr auto operator()(const A& a, const B& b) const { return a + b; }
  template <class T>
  static UFUNC_HD constexpr T identity() { return T(0); }
};

/// a * b; identity 1.
struct multiplies {
  template <class A, class B>
  UFUNC_HD constexpr auto operator()(const A& a, const B& b) const { return a * b; }
  template <class T>
  static UFUNC_HD constexpr T identity() { return T(1); }
};

/// The smaller of a and b; NaN if either is NaN (as numpy.minimum). Identity: +inf
/// for floating point, the largest value for integers.
struct minimum {
  template <class A, class B>
  UFUNC_HD constexpr auto operator()(const A& a, const B& b) const {
    using R = cuda::std::common_type_t<A, B>;
    if (detail::is_nan(a)) return static_cast<R>(a);
    if (detail::is_nan(b)) return static_cast<R>(b);
    return b < a ? static_cast<R>(b) : static_cast<R>(a);
  }
  template <class T>
  static UFUNC_HD constexpr T identity() {
    if constexpr (cuda::std::numeric_limits<T>::has_infinity)
      return cuda::std::numeric_limits<T>::infinity();
    else
      return cuda::std::numeric_limits<T>::max();
  }
};

/// The larger of a and b; NaN if either is NaN (as numpy.maximum). Identity: -inf
/// for floating point, the smallest value for integers.
struct maximum {
  template <class A, class B>
  UFUNC_HD constexpr auto operator()(const A& a, const B& b) const {
    using R = cuda::std::common_type_t<A, B>;
    if (detail::is_nan(a)) return static_cast<R>(a);
    if (detail::is_nan(b)) return static_cast<R>(b);
    return a < b ? static_cast<R>(b) : static_cast<R>(a);
  }
  template <class T>
  static UFUNC_HD constexpr T identity() {
    if constexpr (cuda::std::numeric_limits<T>::has_infinity)
      return -cuda::std::numeric_limits<T>::infinity();
    else
      return cuda::std::numeric_limits<T>::lowest();
  }
};

/// a && b (as bool); identity true.
struct logical_and {
  template <class A, class B>
  UFUNC_HD constexpr bool operator()(const A& a, const B& b) const { return static_cast<bool>(a) && static_cast<bool>(b); }
  template <class T>
  static UFUNC_HD constexpr T identity() { return T(true); }
};

/// a || b (as bool); identity false.
struct logical_or {
  template <class A, class B>
  UFUNC_HD constexpr bool operator()(const A& a, const B& b) const { return static_cast<bool>(a) || static_cast<bool>(b); }
  template <class T>
  static UFUNC_HD constexpr T identity() { return T(false); }
};

/// a & b (integers); identity all bits set.
struct bit_and {
  template <class A, class B>
  UFUNC_HD constexpr auto operator()(const A& a, const B& b) const { return a & b; }
  template <class T>
  static UFUNC_HD constexpr T identity() { return static_cast<T>(~T(0)); }
};

/// a | b (integers); identity 0.
struct bit_or {
  template <class A, class B>
  UFUNC_HD constexpr auto operator()(const A& a, const B& b) const { return a | b; }
  template <class T>
  static UFUNC_HD constexpr T identity() { return T(0); }
};

/// a ^ b (integers); identity 0.
struct bit_xor {
  template <class A, class B>
  UFUNC_HD constexpr auto operator()(const A& a, const B& b) const { return a ^ b; }
  template <class T>
  static UFUNC_HD constexpr T identity() { return T(0); }
};

namespace detail {
/// True when Op declares `identity<T>()`.
template <class Op, class T, class = void>
struct has_identity : cuda::std::false_type {};
template <class Op, class T>
struct has_identity<Op, T, cuda::std::void_t<decltype(Op::template identity<T>())>> : cuda::std::true_type {};
}  // namespace detail

}  // namespace ufunc
