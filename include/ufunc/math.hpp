// ufunc::math: elementary functions for UFUNC_HD functions that the host
// compiler can vectorise (issue 37): exp, log, sin, cos, sqrt and hypot of
// float. glibc's expf, logf, sinf, cosf and hypotf are calls per element that no
// loop around them vectorises (their SIMD variants in libmvec are declared only
// under -ffast-math), and std::sqrt with errno (GCC's default -fmath-errno)
// keeps a call for negative inputs behind a branch, which also stops the
// vectoriser; so a host loop calling them runs a few ns per element where NumPy's
// SIMD loops run four to eight at once. These functions are written branch-free
// (integer masks and selects, integer exponent arithmetic; no float comparison,
// which GCC keeps as a branch under the default -ftrapping-math), so a call
// inside a function given to ufunc::vectorize compiles to SSE2/AVX2/AVX-512 code
// on the host (GCC at -O3, or -O2 -ftree-vectorize; checked with
// -fopt-info-vec for SSE2, -mavx2 -mfma and AVX-512). log, sin, cos and hypot
// compute in double and round once to float, so they are within 1 ulp (nearly
// always the correctly rounded float); sqrt is correctly rounded, as IEEE's.
// None relies on FMA: the host dispatch's clones never fuse a * b + c, so the
// results are the same bits on every instruction set it picks (NaN payloads
// aside); a build with -mfma may fuse, which can move a last bit of exp, log,
// sin, cos or hypot (within the same bounds) but not sqrt's. On the device
// each is CUDA's own function.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "config.hpp"

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

/// e^x in float. Host: at most 1 ulp from the correctly rounded result over the
/// whole float range, subnormal results included (tests/test_math.cpp checks
/// every 4093rd bit pattern and every boundary against the double exp); inf for
/// x > 88.7228394, +0 for x < -103.972084, NaN for NaN. Device: CUDA's expf
/// (2 ulp, its programming guide; 1 with -use_fast_math off, the default).
UFUNC_HD inline float exp(float x) {
#if defined(__CUDA_ARCH__)
  return ::expf(x);
#else
  // x = k ln2 + r with |r| <= ln2/2 (Cody-Waite: ln2 in two parts, the first
  // exact in 9 bits so k * C1 is exact), e^r by Cephes' degree-6 polynomial,
  // 2^k in two normal-range factors so that a subnormal result rounds once.
  // No branch and no float comparison: GCC keeps a comparison that may trap
  // (-ftrapping-math, the default) as a branch, sinks the float-to-int
  // conversion into it, and then vectorises nothing. So the clamp to
  // [-104, 89] (NaNs included) is an integer min on the bit pattern, and the
  // overflow, underflow and NaN results are blended in by integer masks.
  const std::int32_t ix = detail::to_bits(x);
  const std::uint32_t ux = static_cast<std::uint32_t>(ix);
  const std::uint32_t lo = ux < 0xC2D00000u ? ux : 0xC2D00000u;  // x < -104 (and -NaN) -> -104
  const std::int32_t slo = static_cast<std::int32_t>(lo);
  const float xc = detail::from_bits(slo < 0x42B20000 ? slo : 0x42B20000);  // x > 89 (and +NaN) -> 89
  const float t = xc * 1.44269504088896341f;
  const std::int32_t k = static_cast<std::int32_t>(t + std::copysign(0.5f, t));
  const float kf = static_cast<float>(k);
  float r = xc - kf * 0.693359375f;
  r = r - kf * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float y = (p * (r * r) + r) + 1.0f;
  const std::int32_t k1 = k >> 1, k2 = k - k1;  // each in [-75, 64]
  const std::int32_t res = detail::to_bits(y * detail::from_bits((k1 + 127) << 23) * detail::from_bits((k2 + 127) << 23));
  const std::int32_t over = -static_cast<std::int32_t>(ix > 0x42B17218);     // x > 88.7228394: inf
  const std::int32_t under = -static_cast<std::int32_t>(ux > 0xC2CFF1B5u);   // x < -103.972084: +0
  const std::int32_t nan = -static_cast<std::int32_t>((ix & 0x7FFFFFFF) > 0x7F800000);
  return detail::from_bits((res & ~(over | under | nan)) | (0x7F800000 & over & ~nan) | (ix & nan));
#endif
}

/// Natural logarithm in float. Host: at most 1 ulp from the correctly rounded
/// result over the whole float range, subnormal inputs included (in double:
/// x = 2^k m, m in [sqrt(1/2), sqrt(2)), log m = 2 atanh((m-1)/(m+1)) by a
/// degree-5 polynomial in its square, relative error below 2^-50, one rounding
/// to float; tests/test_math.cpp checks 1 ulp). Measured on all 2^32 inputs: the
/// correctly rounded float everywhere (the double log rounded to float differs
/// in 2 inputs, where that double rounding is what errs). -inf for +-0, NaN for
/// x < 0 (-inf included), +inf for +inf, NaN for NaN. Device: CUDA's logf
/// (1 ulp, CUDA programming guide).
UFUNC_HD UFUNC_MATH_INLINE inline float log(float x) {
#if defined(__CUDA_ARCH__)
  return ::logf(x);
#else
  const std::int32_t ix = detail::to_bits(x);
  const std::int32_t ax = ix & 0x7FFFFFFF;
  // Subnormals (and zeros) scaled by 2^23 into the normal range, exactly.
  const std::int32_t sub = -static_cast<std::int32_t>(ax < 0x00800000);
  const std::int32_t iy = (detail::to_bits(x * 8388608.0f) & 0x7FFFFFFF & sub) | (ax & ~sub);
  // |x| 2^(23 sub) = 2^k m with m in [sqrt(1/2), sqrt(2)).
  const std::int32_t t = iy - 0x3F3504F3;
  const std::int32_t k = (t >> 23) - (sub & 23);
  const double f = static_cast<double>(detail::from_bits(iy - (t & static_cast<std::int32_t>(0xFF800000u)))) - 1.0;
  const double s = f / (2.0 + f);
  const double z = s * s;
  double p = 1.6623116584283471306e-1;
  p = p * z + 1.8140107756610345228e-1;
  p = p * z + 2.2222864249374917868e-1;
  p = p * z + 2.8571424120220830140e-1;
  p = p * z + 4.0000000011263543349e-1;
  p = p * z + 6.6666666666662055287e-1;
  const double lg = static_cast<double>(k) * 0.6931471805599453094 + (2.0 * s + (s * z) * p);
  const std::int32_t res = detail::to_bits(static_cast<float>(lg));
  const std::int32_t zero = -static_cast<std::int32_t>(ax == 0);                // -inf
  const std::int32_t neg = -static_cast<std::int32_t>(ix < 0) & ~zero;          // NaN
  const std::int32_t top = -static_cast<std::int32_t>(ix >= 0x7F800000);        // +inf, NaN: x
  return detail::from_bits((res & ~(zero | neg | top)) | (static_cast<std::int32_t>(0xFF800000u) & zero) |
                           (0x7FC00000 & neg) | (ix & top));
#endif
}

/// sin x in float. Host: at most 1 ulp from the correctly rounded result over
/// the whole float range, huge |x| included (reduced by Payne-Hanek in integers
/// to within 2^-31 relative, then double polynomials rounded once to float;
/// tests/test_math.cpp checks 1 ulp). Measured on all 2^32 inputs: the bits of
/// the double sin rounded to float. sin(-0) = -0, NaN for +-inf and NaN.
/// Device: CUDA's sinf (2 ulp, CUDA programming guide).
UFUNC_HD UFUNC_MATH_INLINE inline float sin(float x) {
#if defined(__CUDA_ARCH__)
  return ::sinf(x);
#else
  const std::int32_t ix = detail::to_bits(x);
  const std::uint32_t ax = static_cast<std::uint32_t>(ix) & 0x7FFFFFFFu;
  std::int32_t s, c;
  std::uint32_t n;
  detail::sincos_parts(ax, s, c, n);
  const std::int32_t odd = -static_cast<std::int32_t>(n & 1);
  const std::int32_t v = ((c & odd) | (s & ~odd)) ^ static_cast<std::int32_t>((n & 2) << 30) ^
                         (ix & static_cast<std::int32_t>(0x80000000u));  // sin(-x) = -sin(x)
  const std::int32_t nan = -static_cast<std::int32_t>(ax >= 0x7F800000u);
  return detail::from_bits((v & ~nan) | ((ix | 0x7FC00000) & nan));
#endif
}

/// cos x in float. Host: at most 1 ulp from the correctly rounded result over
/// the whole float range (as sin; tests/test_math.cpp checks 1 ulp). Measured on
/// all 2^32 inputs: the bits of the double cos rounded to float but for
/// x = +-0x1.4555p+51, 1 ulp off (its cos lies 1.3e-9 ulp beyond a midpoint).
/// NaN for +-inf and NaN. Device: CUDA's cosf (2 ulp, CUDA programming guide).
UFUNC_HD UFUNC_MATH_INLINE inline float cos(float x) {
#if defined(__CUDA_ARCH__)
  return ::cosf(x);
#else
  const std::int32_t ix = detail::to_bits(x);
  const std::uint32_t ax = static_cast<std::uint32_t>(ix) & 0x7FFFFFFFu;
  std::int32_t s, c;
  std::uint32_t n;
  detail::sincos_parts(ax, s, c, n);
  const std::int32_t odd = -static_cast<std::int32_t>(n & 1);
  const std::int32_t v = ((s & odd) | (c & ~odd)) ^ static_cast<std::int32_t>(((n + 1) & 2) << 30);
  const std::int32_t nan = -static_cast<std::int32_t>(ax >= 0x7F800000u);
  return detail::from_bits((v & ~nan) | ((ix | 0x7FC00000) & nan));
#endif
}

/// Square root in float, correctly rounded (0 ulp: IEEE's sqrt, as std::sqrt;
/// tests/test_math.cpp compares bits; the bits of std::sqrt on all 2^32 inputs,
/// NaNs aside, built for SSE2 and with -mavx2 -mfma); -0 for -0, NaN for x < 0,
/// +inf for +inf, NaN for NaN. On the host without errno (-fno-math-errno,
/// -ffast-math) it is the compiler's sqrt instruction. With errno (GCC's
/// default) std::sqrt keeps a call for negative x behind a branch and nothing
/// vectorises, so it is computed here: x = z 4^k with z in [1, 4), 1/sqrt(z)
/// from the bit pattern and two Newton steps in float (5e-6), sqrt(z) from that
/// and one correction by the residual z - s^2 (r within 1.1 ulp), then an exact
/// test in 64-bit integers moves r to its neighbour where the root lies beyond
/// the midpoint between them (a float's square root is never a midpoint). In
/// integers, not by Dekker's exact product in float: a build with FMA fuses
/// a * b - c there and breaks it. A loop of sqrt alone is slower this way than
/// with std::sqrt's inline instruction (SSE2 6.5 ns per element, AVX-512 2.2,
/// against 1.0); what it buys is the vectorisation of a loop that also does other
/// work. Device: CUDA's sqrtf (correctly rounded with the default
/// -prec-sqrt=true, CUDA programming guide).
UFUNC_HD UFUNC_MATH_INLINE inline float sqrt(float x) {
#if defined(__CUDA_ARCH__)
  return ::sqrtf(x);
#elif defined(__NO_MATH_ERRNO__)
  return __builtin_sqrtf(x);
#else
  const std::int32_t ix = detail::to_bits(x);
  const std::int32_t ax = ix & 0x7FFFFFFF;
  // Subnormals times 2^24 (exact), their root times 2^-12 at the end.
  const std::int32_t sub = -static_cast<std::int32_t>(ax < 0x00800000);
  const std::int32_t iw = (detail::to_bits(x * 16777216.0f) & 0x7FFFFFFF & sub) | (ax & ~sub);
  // |x| 2^(24 sub) = z 4^k, z in [1, 4).
  const std::int32_t e = (iw >> 23) - 127;
  const float z = detail::from_bits((iw & 0x007FFFFF) | ((127 + (e & 1)) << 23));
  float y = detail::from_bits(0x5F375A86 - (detail::to_bits(z) >> 1));  // 1/sqrt(z) within 3.5%
  const float hz = 0.5f * z;
  y = y * (1.5f - (hz * y) * y);
  y = y * (1.5f - (hz * y) * y);  // 5e-6
  const float s = z * y;
  float r = s + (z - s * s) * (0.5f * y);  // within 1.1 ulp of sqrt(z)
  // Clamped to [1, 2] (towards the root, which lies there), then checked in
  // integers: R = r 2^23 and Z = z 2^23 are integers, and the root lies beyond
  // the midpoint above r when Z 2^23 > (R + 1/2)^2, i.e. Z 2^23 > R (R + 1), below
  // the one under r when Z 2^23 <= R (R - 1) (2^-24 below 2 is a midpoint too).
  const std::int32_t rb0 = detail::to_bits(r);
  const std::int32_t rb = rb0 < 0x3F800000 ? 0x3F800000 : rb0 > 0x40000000 ? 0x40000000 : rb0;
  r = detail::from_bits(rb);
  const std::uint32_t ri = static_cast<std::uint32_t>(static_cast<std::int32_t>(r * 8388608.0f));
  const std::uint64_t zi = static_cast<std::uint64_t>(static_cast<std::int32_t>(z * 8388608.0f)) << 23;
  const std::int32_t up = static_cast<std::int32_t>((static_cast<std::uint64_t>(ri) * (ri + 1u) - zi) >> 63);
  const std::int32_t down = 1 - static_cast<std::int32_t>((static_cast<std::uint64_t>(ri) * (ri - 1u) - zi) >> 63);
  const std::int32_t res = static_cast<std::int32_t>(static_cast<std::uint32_t>(rb + up - down) +
                                                     (static_cast<std::uint32_t>((e >> 1) - (sub & 12)) << 23));
  const std::int32_t keep = -static_cast<std::int32_t>((ax == 0) | (ix >= 0x7F800000));  // +-0, +inf, NaN
  const std::int32_t neg = -static_cast<std::int32_t>(ix < 0) & ~keep;                  // NaN
  return detail::from_bits((res & ~(neg | keep)) | (0x7FC00000 & neg) | (ix & keep));
#endif
}

/// sqrt(x^2 + y^2) in float without overflow or underflow in between (computed
/// in double, where the squares are exact and cannot overflow). Host: at most
/// 1 ulp from the correctly rounded result (x^2 + y^2 rounded once in double,
/// its square root to 2^-53 relative, rounded to float; tests/test_math.cpp
/// checks 1 ulp; the bits of the double hypot rounded to float on 10^8 random
/// pairs of all exponents); +inf when either is
/// +-inf, even if the other is NaN (C99), else NaN when either is NaN. Device:
/// CUDA's hypotf (3 ulp, CUDA programming guide).
UFUNC_HD UFUNC_MATH_INLINE inline float hypot(float x, float y) {
#if defined(__CUDA_ARCH__)
  return ::hypotf(x, y);
#else
  const double a = static_cast<double>(x), b = static_cast<double>(y);
  const double s = a * a + b * b;
  const double rs = detail::rsqrt_newton(s);
  const double h0 = s * rs;
  const double h = h0 + (0.5 * rs) * (s - h0 * h0);  // one more Newton step: 2^-53
  const std::int32_t res = detail::to_bits(static_cast<float>(h));
  const std::int32_t inf = -static_cast<std::int32_t>(((detail::to_bits(x) & 0x7FFFFFFF) == 0x7F800000) |
                                                       ((detail::to_bits(y) & 0x7FFFFFFF) == 0x7F800000));
  return detail::from_bits((res & ~inf) | (0x7F800000 & inf));
#endif
}

}  // namespace ufunc::math
