// Element types: what the library knows about each, in one place. Every
// operation asks element_traits<T> rather than deciding for itself.
//
// Any trivially copyable T can be stored, copied, transposed and passed through
// a user's function; element_traits says what else the library may do with it.
// Adding a type (e.g. __half, __nv_bfloat16): specialise element_traits for it
// here (is_arithmetic, is_floating, mean_acc, is_nan, lowest/highest; vec_width
// and bytes follow from the size), then give the kernels that need an
// instruction for it one (a packed add, an atomic); nothing else changes.
// Host-only C++ and device code alike: only libcu++ headers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <cuda/std/limits>

#include "../config.hpp"

namespace ufunc::detail {

constexpr bool is_pow2(std::size_t x) { return x && !(x & (x - 1)); }

/// The facts about element type T (defaults: C++'s own for arithmetic types).
template <class T>
struct element_traits {
  /// Built-in arithmetic (bool, integers, float, double): reductions, ops, means.
  static constexpr bool is_arithmetic = std::is_arithmetic_v<T>;
  static constexpr bool is_floating = std::is_floating_point_v<T>;
  static constexpr std::size_t bytes = sizeof(T);
  /// Elements one 16-byte vector access moves (1 when the size is not a power of
  /// two or exceeds 16 bytes: such elements are moved one by one).
  static constexpr int vec_width = (is_pow2(bytes) && bytes <= 16) ? static_cast<int>(16 / bytes) : 1;
  /// The accumulator of `mean`: floating input in its own type (at least float),
  /// integers and bool in double.
  using mean_acc = std::conditional_t<is_floating, std::conditional_t<(sizeof(T) < sizeof(float)), float, T>, double>;
  /// The accumulator and result of sums and products (NumPy's add/multiply
  /// reduce): bool and integers narrower than 64 bits widen to int64 (signed and
  /// bool) or uint64 (unsigned); void for every other type (the op's own result).
  using sum_acc = std::conditional_t<
      std::is_integral_v<T> && (sizeof(T) < 8),
      std::conditional_t<std::is_signed_v<T> || std::is_same_v<T, bool>, std::int64_t, std::uint64_t>, void>;
  /// matmul's kernels exist for these (plain FP32/FP64 arithmetic).
  static constexpr bool has_matmul = std::is_same_v<T, float> || std::is_same_v<T, double>;
  /// ufunc/atomic.hpp supports these: 4- and 8-byte integers, float, double.
  static constexpr bool has_atomics =
      (std::is_integral_v<T> && !std::is_same_v<T, bool> && (bytes == 4 || bytes == 8)) || has_matmul;

  /// True for a NaN (never for integers and bool).
  static UFUNC_HD constexpr bool is_nan(const T& v) {
    if constexpr (is_floating)
      return v != v;
    else
      return false;
  }
  /// The identity of `maximum`: -infinity where T has one, else its lowest value.
  static UFUNC_HD constexpr T lowest() {
    if constexpr (cuda::std::numeric_limits<T>::has_infinity)
      return -cuda::std::numeric_limits<T>::infinity();
    else
      return cuda::std::numeric_limits<T>::lowest();
  }
  /// The identity of `minimum`: +infinity where T has one, else its largest value.
  static UFUNC_HD constexpr T highest() {
    if constexpr (cuda::std::numeric_limits<T>::has_infinity)
      return cuda::std::numeric_limits<T>::infinity();
    else
      return cuda::std::numeric_limits<T>::max();
  }
};

/// NaN test usable on every element type (false for integers and bool).
template <class T>
UFUNC_HD constexpr bool is_nan(const T& v) {
  return element_traits<T>::is_nan(v);
}

/// Elements per 16-byte access for a set of operands: the narrowest of theirs.
template <class... T>
constexpr int common_vec_width() {
  int w = 16;
  ((w = element_traits<T>::vec_width < w ? element_traits<T>::vec_width : w), ...);
  return w;
}

}  // namespace ufunc::detail
