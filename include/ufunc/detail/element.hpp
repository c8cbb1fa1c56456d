// Element types: what the library knows about each, in one place. Every
// operation asks element_traits<T> rather than deciding for itself.
//
// Any trivially copyable T can be stored, copied, transposed and passed through
// a user's function; element_traits says what else the library may do with it.
// Adding a type: give element_traits its facts here (is_arithmetic, is_floating,
// mean_acc, sum_acc, is_nan, lowest/highest; vec_width and bytes follow from the
// size), then give the kernels that need an instruction for it one (a packed
// add, an atomic); nothing else changes.
//
// The 16-bit floating types __half (cuda_fp16.h) and __nv_bfloat16 (cuda_bf16.h)
// are element types of both backends. Their facts: floating point (NumPy's
// float16 kind), sums and products accumulate in float (sum_acc) and means in
// float (mean_acc); lowest/highest are -/+inf. On the host (g++, the host
// backend, and host code of CUDA builds) the CUDA headers' own host
// implementations do their arithmetic and conversions: each operator converts
// to float, computes and rounds back to nearest even, the same results the
// device's native instructions give for + - * /, comparisons and conversions.
// Every conversion into or out of them goes through `convert` below.
// Host-only C++ and device code alike: only libcu++ and the CUDA Toolkit's
// cuda_fp16.h/cuda_bf16.h (which <cuda/std/limits> includes anyway).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <cuda/std/__fwd/complex.h>  // cuda::std::complex declared (the full <cuda/std/complex> costs ~1 s per file)
#include <cuda/std/limits>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "../config.hpp"

// Host-device templates that may instantiate host-only code (a plain lambda, a
// user type's conversion, on the host target): nvcc must not check those.
#if defined(__CUDACC__)
#  define UFUNC_EXEC_CHECK_DISABLE _Pragma("nv_exec_check_disable")
#else
#  define UFUNC_EXEC_CHECK_DISABLE
#endif

namespace ufunc::detail {

constexpr bool is_pow2(std::size_t x) { return x && !(x & (x - 1)); }

/// The 16-bit floating types: __half (IEEE binary16) and __nv_bfloat16.
template <class T>
inline constexpr bool is_half_v = std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;
/// Floating point in NumPy's sense (its "f" kind): float, double, long double and
/// the 16-bit types.
template <class T>
inline constexpr bool is_float_kind_v = std::is_floating_point_v<T> || is_half_v<T>;
/// bool, integers and the floating kinds.
template <class T>
inline constexpr bool is_numeric_v = std::is_arithmetic_v<T> || is_half_v<T>;
/// libcu++'s complex numbers of float and double (NumPy's complex64 and complex128).
template <class T>
inline constexpr bool is_complex_v = false;
template <class P>
inline constexpr bool is_complex_v<cuda::std::complex<P>> = std::is_same_v<P, float> || std::is_same_v<P, double>;

/// The facts about element type T (defaults: C++'s own for arithmetic types).
template <class T>
struct element_traits {
  /// Built-in arithmetic (bool, integers, float, double) and the 16-bit floats:
  /// reductions, ops, means.
  static constexpr bool is_arithmetic = is_numeric_v<T>;
  static constexpr bool is_floating = is_float_kind_v<T>;
  static constexpr std::size_t bytes = sizeof(T);
  /// Elements one 16-byte vector access moves (1 when the size is not a power of
  /// two or exceeds 16 bytes: such elements are moved one by one).
  static constexpr int vec_width = (is_pow2(bytes) && bytes <= 16) ? static_cast<int>(16 / bytes) : 1;
  /// The accumulator (and result) of `mean`: floating input in its own type, at
  /// least float (so __half and __nv_bfloat16 in float); complex in its own type
  /// (NumPy's complex64 mean is complex64); integers and bool in double.
  using mean_acc = std::conditional_t<
      is_complex_v<T>, T,
      std::conditional_t<is_floating, std::conditional_t<(sizeof(T) < sizeof(float)), float, T>, double>>;
  /// The accumulator and result of sums and products (NumPy's add/multiply
  /// reduce): bool and integers narrower than 64 bits widen to int64 (signed and
  /// bool) or uint64 (unsigned); __half and __nv_bfloat16 accumulate in float
  /// (the result is a float; write it into a 16-bit `out` to round it once);
  /// void for every other type (the op's own result: float, double and complex
  /// keep their type, as NumPy's).
  using sum_acc = std::conditional_t<
      is_half_v<T>, float,
      std::conditional_t<std::is_integral_v<T> && (sizeof(T) < 8),
                         std::conditional_t<std::is_signed_v<T> || std::is_same_v<T, bool>, std::int64_t, std::uint64_t>,
                         void>>;
  /// matmul exists for these: FP32/FP64 arithmetic, the 16-bit floats with
  /// float accumulation (the tensor cores on CUDA), and complex<float|double>
  /// as one real product of twice the size (detail/matmul_call.hpp).
  static constexpr bool has_matmul =
      std::is_same_v<T, float> || std::is_same_v<T, double> || is_half_v<T> || is_complex_v<T>;
  /// ufunc/atomic.hpp supports these: 4- and 8-byte integers, float, double,
  /// __half, __nv_bfloat16.
  static constexpr bool has_atomics = (std::is_integral_v<T> && !std::is_same_v<T, bool> && (bytes == 4 || bytes == 8)) ||
                                      std::is_same_v<T, float> || std::is_same_v<T, double> || is_half_v<T>;

  /// True for a NaN (never for integers and bool).
  static UFUNC_HD constexpr bool is_nan(const T& v) noexcept {
    if constexpr (is_half_v<T>)
      return static_cast<float>(v) != static_cast<float>(v);  // exact widening keeps NaN
    else if constexpr (is_floating)
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

/// NumPy's name of an element type ("float32", "int64", ...) for messages; the
/// C++ size for any other type.
template <class T>
constexpr const char* element_name() {
  if constexpr (std::is_same_v<T, bool>) return "bool";
  else if constexpr (std::is_same_v<T, __half>) return "float16";
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return "bfloat16";
  else if constexpr (std::is_floating_point_v<T>) return sizeof(T) == 4 ? "float32" : sizeof(T) == 8 ? "float64" : "float";
  else if constexpr (is_complex_v<T>) return sizeof(T) == 8 ? "complex64" : "complex128";
  else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>)
    return sizeof(T) == 1 ? "int8" : sizeof(T) == 2 ? "int16" : sizeof(T) == 4 ? "int32" : "int64";
  else if constexpr (std::is_integral_v<T>)
    return sizeof(T) == 1 ? "uint8" : sizeof(T) == 2 ? "uint16" : sizeof(T) == 4 ? "uint32" : "uint64";
  else return "a non-arithmetic type";
}

/// NumPy's `same_kind` casting from From to To (np.can_cast(From, To,
/// "same_kind")): bool into anything; unsigned integers into any integer or
/// floating type; signed integers into signed integers or floating types;
/// floating types into floating types (the 16-bit ones included: float32 into
/// float16 is same_kind in NumPy, float16 into int is not). Types other than
/// these convert as C++ converts them (the library cannot judge).
template <class From, class To>
constexpr bool same_kind_cast() {
  if constexpr (std::is_same_v<From, To> || !is_numeric_v<From> || !is_numeric_v<To>) return true;
  else if constexpr (std::is_same_v<From, bool>) return true;
  else if constexpr (std::is_same_v<To, bool>) return false;
  else if constexpr (is_float_kind_v<From>) return is_float_kind_v<To>;
  else if constexpr (std::is_unsigned_v<From>) return true;
  else return is_float_kind_v<To> || std::is_signed_v<To>;
}

/// The library's one conversion of a result into an output element: every store
/// into an `out` of another type and every cast copy goes through it, on both
/// backends. As static_cast, except where C++ leaves the conversion undefined:
/// floating point to an integer type (bool excepted) maps NaN to 0 and saturates
/// values beyond the integer's range (+/-inf included) to its min/max, after
/// truncation toward zero, as CUDA's cvt.rzi.sat. (Floating to floating follows
/// IEEE 754: too large a double becomes +/-inf in float.) __half and
/// __nv_bfloat16 convert out through float (exact), then by the rules here (so
/// into an integer as float does); into them, a value rounds once to nearest
/// even (the CUDA headers' __float2half_rn, __double2half, __int2half_rn, ...;
/// beyond the largest finite value: +/-inf), the other 16-bit type through float.
UFUNC_EXEC_CHECK_DISABLE
template <class To, class From>
UFUNC_HD constexpr To convert(const From& v) {
  if constexpr (is_half_v<From> && !std::is_same_v<From, To>) {
    return convert<To>(static_cast<float>(v));
  } else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To> && !std::is_same_v<To, bool>) {
    if (v != v) return To(0);
    constexpr To lo = cuda::std::numeric_limits<To>::min(), hi = cuda::std::numeric_limits<To>::max();
    // lo is 0 or -2^k and hi + 1 is 2^k: both exact in From, so the comparisons are.
    constexpr From lo_f = static_cast<From>(lo);
    constexpr From past_hi = static_cast<From>(hi / 2 + 1) * From(2);
    if (v <= lo_f) return lo;
    if (v >= past_hi) return hi;
    return static_cast<To>(v);  // lo_f < v < 2^k: the truncated value fits
  } else {
    return static_cast<To>(v);
  }
}

/// NaN test usable on every element type (false for integers and bool).
template <class T>
UFUNC_HD constexpr bool is_nan(const T& v) noexcept {
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
