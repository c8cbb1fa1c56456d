// The pieces of ufunc::math's functions (math.hpp): bit casts, range
// reductions and polynomials, usable in UFUNC_HD code on both backends.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "../config.hpp"

// Host code is inlined whole into the loop that calls it (GCC, clang): a call
// left out of line is a call per element, and nothing vectorises (sin's
// reduction and polynomials are past -O2's inlining limits).
#if defined(__GNUC__) && !defined(__CUDACC__)
#  define UFUNC_MATH_INLINE __attribute__((always_inline))
#else
#  define UFUNC_MATH_INLINE
#endif

namespace ufunc::math {

namespace detail {
UFUNC_HD inline float from_bits(std::int32_t i) {
  float f;
  std::memcpy(&f, &i, sizeof f);
  return f;
}
UFUNC_HD inline std::int32_t to_bits(float f) {
  std::int32_t i;
  std::memcpy(&i, &f, sizeof i);
  return i;
}
UFUNC_HD inline double from_bits64(std::uint64_t i) {
  double f;
  std::memcpy(&f, &i, sizeof f);
  return f;
}
UFUNC_HD inline std::uint64_t to_bits64(double f) {
  std::uint64_t i;
  std::memcpy(&i, &f, sizeof i);
  return i;
}

#if !defined(__CUDA_ARCH__)
/// 1/sqrt(s) for a positive normal double s (or +0, which gives a finite value),
/// within 2^-34 relative: the bit-pattern estimate (3.4%) and three Newton steps.
/// Integer shift and subtract plus multiplies, all of which vectorise (std::sqrt
/// does not under -fmath-errno).
UFUNC_MATH_INLINE inline double rsqrt_newton(double s) {
  double y = from_bits64(0x5FE6EB50C7B537A9ull - (to_bits64(s) >> 1));
  const double h = 0.5 * s;
  y = y * (1.5 - (h * y) * y);  // (h y) y, not h (y y): y*y may overflow for s = 0
  y = y * (1.5 - (h * y) * y);
  y = y * (1.5 - (h * y) * y);
  return y;
}

/// 2/pi in binary: word k holds bits 8k-31 .. 8k of its fraction (2/pi 2^(8k)
/// mod 2^32, the leading words zero), so the 96 bits from any byte are words
/// k, k + 4, k + 8.
inline constexpr std::uint32_t two_over_pi_bits[25] = {
    0x00000000, 0x000000A2, 0x0000A2F9, 0x00A2F983, 0xA2F9836E, 0xF9836E4E, 0x836E4E44, 0x6E4E4415, 0x4E441529,
    0x441529FC, 0x1529FC27, 0x29FC2757, 0xFC2757D1, 0x2757D1F5, 0x57D1F534, 0xD1F534DD, 0xF534DDC0, 0x34DDC0DB,
    0xDDC0DB62, 0xC0DB6295, 0xDB629599, 0x6295993C, 0x95993C43, 0x993C4390, 0x3C439041};

/// |x| = n pi/2 + r for the bits ax of a finite |x| >= 0.5 (anything else gives
/// some finite r): n mod 4 and r in [-pi/4, pi/4], within 2^-61 pi/2 (relative
/// error below 2^-31 even for the float nearest a multiple of pi/2, 16367173
/// 2^72, whose r is 1.6e-9). Payne-Hanek in integers: with |x| = M 2^(e-150), e
/// the biased exponent and M the 24-bit significand, |x| 2/pi mod 4 needs only 96
/// bits of 2/pi, from the byte at or above bit e - 152 (the higher bits give
/// multiples of 4, the lower ones less than 2^-62): the table's words j, j + 4,
/// j + 8 for j = (e - 120) / 8, with the rest of the shift, (e - 120) mod 8, put
/// into M. Their 32 x 96-bit product, taken at 2 integer and 62 fraction bits,
/// is |x| 2/pi mod 4 but for the truncation. The three table reads are gathers
/// (GCC 12 loads each lane's word: its generic tuning emits no gather
/// instruction, AVX2 or AVX-512).
UFUNC_MATH_INLINE inline void reduce_pi2(std::uint32_t ax, double& r, std::uint32_t& n) {
  const std::int32_t e = static_cast<std::int32_t>(ax >> 23);
  const std::int32_t i = e > 120 ? e - 120 : 0;
  const std::int32_t j = i >> 3;
  // M 2^(i mod 8), below 2^31: a float of exponent i mod 8 converted to int (a
  // shift by a different count in each lane has no SSE2 instruction).
  const float xs =
      from_bits(static_cast<std::int32_t>((ax & 0x7FFFFFu) | static_cast<std::uint32_t>(150 + (i & 7)) << 23));
  const std::uint32_t xi = static_cast<std::uint32_t>(static_cast<std::int32_t>(xs));
  const std::uint32_t w0 = two_over_pi_bits[j], w1 = two_over_pi_bits[j + 4], w2 = two_over_pi_bits[j + 8];
  const std::uint64_t p1 = static_cast<std::uint64_t>(xi) * w1;
  const std::uint32_t c = static_cast<std::uint32_t>((static_cast<std::uint64_t>(xi) * w2) >> 32);
  const std::uint32_t lo = static_cast<std::uint32_t>(p1) + c;
  const std::uint32_t hi = xi * w0 + static_cast<std::uint32_t>(p1 >> 32) + static_cast<std::uint32_t>(lo < c);
  // hi:lo = |x| 2/pi mod 4 in units of 2^-62; rounded to the nearest quadrant n,
  // the rest (-2^61 .. 2^61) to double from its two halves.
  const std::uint32_t hr = hi + 0x20000000u;
  n = hr >> 30;
  const std::int32_t fhi = static_cast<std::int32_t>(hr & 0x3FFFFFFFu) - 0x20000000;
  const double d = static_cast<double>(fhi) * 4294967296.0 +
                   (static_cast<double>(static_cast<std::int32_t>(lo ^ 0x80000000u)) + 2147483648.0);
  r = d * 3.406121580086554589e-19;  // pi/2 2^-62
}

/// sin and cos of |x| as floats' bits, before the quadrant's sign: s = sin(r),
/// c = cos(r) with |x| = n pi/2 + r. |x| < 0.5 is r itself (n = 0); polynomials
/// in r^2 on [0, (pi/4)^2] (Chebyshev fits of degree 5, relative error below
/// 2^-55 and 2^-51), in double.
UFUNC_MATH_INLINE inline void sincos_parts(std::uint32_t ax, std::int32_t& s, std::int32_t& c, std::uint32_t& n) {
  double r;
  std::uint32_t q;
  reduce_pi2(ax, r, q);
  // Selected by masks: a ternary here becomes a branch around the reduction
  // (its float-to-int conversion may trap), and then nothing vectorises.
  const std::uint32_t small = 0u - static_cast<std::uint32_t>(ax < 0x3F000000u);
  const std::uint64_t small64 = 0u - static_cast<std::uint64_t>(ax < 0x3F000000u);
  r = from_bits64((to_bits64(r) & ~small64) |
                  (to_bits64(static_cast<double>(from_bits(static_cast<std::int32_t>(ax)))) & small64));
  n = q & ~small;
  const double z = r * r;
  double ps = 1.5918115263265975194e-10;
  ps = ps * z + -2.5051131650235181470e-8;
  ps = ps * z + 2.7557316101617874437e-6;
  ps = ps * z + -1.9841269836756772528e-4;
  ps = ps * z + 8.3333333333309472945e-3;
  ps = ps * z + -1.6666666666666664622e-1;
  double pc = 2.0665483846596791822e-9;
  pc = pc * z + -2.7555855220105784430e-7;
  pc = pc * z + 2.4801582621951666573e-5;
  pc = pc * z + -1.3888888882125251625e-3;
  pc = pc * z + 4.1666666666630908405e-2;
  pc = pc * z + -4.9999999999999969363e-1;
  s = to_bits(static_cast<float>(r + (r * z) * ps));
  c = to_bits(static_cast<float>(1.0 + z * pc));
}
#endif
}  // namespace detail

}  // namespace ufunc::math
