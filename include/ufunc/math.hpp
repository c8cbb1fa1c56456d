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
#include "detail/math.hpp"  // the functions' pieces (ufunc::math::detail)

namespace ufunc::math {

/// e^x in float. Host: at most 1 ulp from the correctly rounded result over the
/// whole float range, subnormal results included (tests/test_math.cpp checks
/// every 4093rd bit pattern and every boundary against the double exp, and
/// every input with a subnormal result or near overflow and every 1021st bit
/// pattern against expl; measured on all 2^32 inputs against expl: the correctly
/// rounded float but for 18.2 million (0.42%), 1 ulp off; also so when built with
/// -mfma, which fuses); inf for x >= 88.7228394 and +0 for
/// x <= -103.972084, as correctly rounded, NaN for NaN. Device: CUDA's expf
/// (2 ulp, its programming guide; 1 with -use_fast_math off, the default).
UFUNC_HD inline float exp(float x) {
#if defined(__CUDA_ARCH__)
  return ::expf(x);
#else
  // x = n ln2 + r with |r| <= ln2/2 (Cody-Waite: ln2 in two parts, the first
  // exact in 9 bits so n * C1 is exact), e^r = 1 + r + r^2 P(r) with P of degree
  // 4 (a minimax fit of relative error 3.7e-9, 0.06 of 2^-24, with its float
  // coefficients), 2^n in two normal-range factors so that a subnormal result
  // rounds once. No branch and no float comparison: GCC keeps a comparison that
  // may trap (-ftrapping-math, the default) as a branch and then vectorises
  // nothing. So x is clamped by integer min on its bit pattern (signed for the
  // top, unsigned for the negatives, NaNs included) to [-103.972084, 88.7228394],
  // the first floats whose exp rounds to +0 and to inf (the arithmetic below
  // gives exactly that there; every float checked), so overflow and underflow
  // need no select of their own. n = round(x log2e) by adding
  // 1.5 2^23 (round to nearest even), read from the sum's bits (not by
  // subtracting 1.5 2^23 again, which -ffast-math folds away).
  const std::int32_t ix = detail::to_bits(x);
  const std::uint32_t ux = static_cast<std::uint32_t>(ix);
  const std::uint32_t lo = ux < 0xC2CFF1B5u ? ux : 0xC2CFF1B5u;  // x < -103.972084 (and -NaN) -> -103.972084
  const std::int32_t slo = static_cast<std::int32_t>(lo);
  const float xc = detail::from_bits(slo < 0x42B17218 ? slo : 0x42B17218);  // x > 88.7228394 (and +NaN) -> 88.7228394
  const std::int32_t n = detail::to_bits(xc * 1.44269504088896341f + 12582912.0f) - 0x4B400000;  // in [-150, 128]
  const float nf = static_cast<float>(n);
  float r = xc - nf * 0.693359375f;
  r = r - nf * -2.12194440e-4f;
  float p = 1.3814558042e-3f;
  p = p * r + 8.3687361330e-3f;
  p = p * r + 4.1668388993e-2f;
  p = p * r + 1.6666521132e-1f;
  p = p * r + 4.9999994040e-1f;
  const float y = (p * (r * r) + r) + 1.0f;  // in [0.70, 1.42]
  // y 2^n1 (exact: n1 = n / 2 rounded down, so the exponent stays normal) times
  // 2^n2, n2 = n - n1: one rounding, to a subnormal, 0 or inf where it must.
  const std::int32_t n1 = n >> 1, n2 = n - n1;  // each in [-75, 64]
  const float res = detail::from_bits(detail::to_bits(y) + n1 * (1 << 23)) * detail::from_bits((n2 + 127) << 23);
  // NaN in, NaN out, by masks (a ternary here becomes a branch around the
  // float arithmetic, which may trap, and nothing vectorises).
  const std::int32_t nan = -static_cast<std::int32_t>((ix & 0x7FFFFFFF) > 0x7F800000);
  return detail::from_bits((detail::to_bits(res) & ~nan) | (ix & nan));
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
