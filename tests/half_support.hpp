// Shared by the 16-bit float tests (test_half*.cpp): an independent software
// model of __half and __nv_bfloat16 from float bits, random data and the
// functors the tests vectorize.
#pragma once

#include "test_support.hpp"

#include <cstring>
#include <limits>
#include <vector>


#include <random>
#include <string>

namespace half_test {

using ufunc::index_t;
using ufunc::shape;

// ---------------------------------------------------------------------------
// An independent software model of the two formats, from float bits.

inline std::uint32_t fbits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float from_fbits(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
template <class T>
std::uint16_t bits16(const T& v) {
  std::uint16_t b;
  std::memcpy(&b, &v, 2);
  return b;
}
template <class T>
T from_bits16(std::uint16_t b) {
  T v;
  std::memcpy(static_cast<void*>(&v), &b, 2);
  return v;
}

/// float -> binary16 / bfloat16 bits, rounding to nearest even; NaN -> a quiet NaN.
template <class T>
std::uint16_t round_bits(float f) {
  const std::uint32_t u = fbits(f);
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((u >> 16) | 0x40u);
    return static_cast<std::uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
  } else {
    const std::uint16_t sign = static_cast<std::uint16_t>((u >> 16) & 0x8000u);
    const std::uint32_t a = u & 0x7fffffffu;
    if (a > 0x7f800000u) return sign | 0x7e00u;
    if (a >= 0x477ff000u) return sign | 0x7c00u;  // >= 65520: rounds to inf
    if (a < 0x38800000u) {                        // below 2^-14: a subnormal (or zero) result
      const int e = static_cast<int>(a >> 23);
      const int sh = 126 - (e == 0 ? 1 : e);      // value = m * 2^(e-150), in units of 2^-24
      if (sh >= 26) return sign;
      const std::uint32_t m = (a & 0x7fffffu) | (e ? 0x800000u : 0u);
      std::uint32_t r = m >> sh;
      const std::uint32_t rem = m & ((1u << sh) - 1u), half = 1u << (sh - 1);
      if (rem > half || (rem == half && (r & 1u))) ++r;
      return static_cast<std::uint16_t>(sign | r);
    }
    std::uint32_t r = a - (112u << 23);  // rebias 127 -> 15
    const std::uint32_t rem = r & 0x1fffu;
    r >>= 13;
    if (rem > 0x1000u || (rem == 0x1000u && (r & 1u))) ++r;
    return static_cast<std::uint16_t>(sign | r);
  }
}

/// 16-bit bits -> float (exact).
template <class T>
float widen(std::uint16_t b) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return from_fbits(std::uint32_t(b) << 16);
  } else {
    const std::uint32_t sign = std::uint32_t(b & 0x8000u) << 16;
    const std::uint32_t e = (b >> 10) & 0x1fu, m = b & 0x3ffu;
    if (e == 31) return from_fbits(sign | 0x7f800000u | (m << 13));
    if (e == 0) return (sign ? -1.f : 1.f) * std::ldexp(static_cast<float>(m), -24);
    return from_fbits(sign | ((e + 112u) << 23) | (m << 13));
  }
}
template <class T>
float widen_v(const T& v) {
  return widen<T>(bits16(v));
}
template <class T>
T round_to(float f) {
  return from_bits16<T>(round_bits<T>(f));
}
/// The bits of a 16-bit value, in host or device code.
template <class T>
UFUNC_HD unsigned short hd_bits(const T& v) {
  unsigned short b;
  memcpy(&b, &v, sizeof b);
  return b;
}
/// Same bits, or both NaN.
template <class T>
bool same16(const T& got, std::uint16_t want) {
  const float g = widen_v(got), w = widen<T>(want);
  if (std::isnan(g) || std::isnan(w)) return std::isnan(g) && std::isnan(w);
  return bits16(got) == want;
}
/// Unit roundoff of the type: 2^-11 (binary16), 2^-8 (bfloat16).
template <class T>
double unit() {
  return std::is_same_v<T, __half> ? std::ldexp(1.0, -11) : std::ldexp(1.0, -8);
}
template <class T>
std::string name16() {
  return std::is_same_v<T, __half> ? "__half" : "__nv_bfloat16";
}

/// Fresh random values of T in [lo, hi] (rounded from uniform floats), with NaN,
/// +inf and -inf at a few places when `specials`.
template <class T>
std::vector<T> random16(std::size_t n, std::uint64_t seed, float lo, float hi, bool specials) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<T> v(n);
  for (auto& x : v) x = round_to<T>(d(rng));
  if (specials && n >= 8) {
    std::uniform_int_distribution<std::size_t> at(0, n - 1);
    v[at(rng)] = round_to<T>(std::numeric_limits<float>::quiet_NaN());
    v[at(rng)] = round_to<T>(std::numeric_limits<float>::infinity());
    v[at(rng)] = round_to<T>(-std::numeric_limits<float>::infinity());
  }
  return v;
}

template <class T, class Want>
void expect_bits(const std::vector<T>& got, const Want& want, const char* what) {
  REQUIRE(got.size() == want.size());
  std::size_t bad = 0, first = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!same16(got[i], want[i])) {
      if (!bad) first = i;
      ++bad;
    }
  char msg[200];
  std::snprintf(msg, sizeof msg, "%s: %zu of %zu wrong; first %zu got 0x%04x want 0x%04x", what, bad, got.size(), first,
                bad ? unsigned(bits16(got[first])) : 0u, bad ? unsigned(want[first]) : 0u);
  INFO(std::string(msg));
  CHECK(bad == 0);
}

// ---------------------------------------------------------------------------
// The functions the tests vectorize (named types: nvcc allows no extended lambda
// in the generic lambdas of the loops).

template <class T>
struct add16 {
  UFUNC_HD T operator()(T a, T b) const { return a + b; }
};
template <class T>
struct mul16 {
  UFUNC_HD T operator()(T a, T b) const { return a * b; }
};
template <class T>
struct scale16 {  // mixed: a 16-bit and a float input, a float result
  UFUNC_HD float operator()(T a, float s) const { return static_cast<float>(a) * s; }
};
template <class T>
struct ident16 {
  UFUNC_HD T operator()(T a) const { return a; }
};
struct ident_f {
  UFUNC_HD float operator()(float a) const { return a; }
};
struct ident_i {
  UFUNC_HD int operator()(int a) const { return a; }
};

/// The reference float -> int32 store of `convert` (NaN 0, truncate, saturate).
inline int ref_to_int(float f) {
  if (f != f) return 0;
  if (f <= -2147483648.f) return INT_MIN;
  if (f >= 2147483648.f) return INT_MAX;
  return static_cast<int>(f);
}

// ---------------------------------------------------------------------------

}  // namespace half_test
