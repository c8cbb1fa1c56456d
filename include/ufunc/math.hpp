// ufunc::math: elementary functions for UFUNC_HD functions that the host
// compiler can vectorise (issue 37). glibc's scalar expf is a call per element
// that no loop around it vectorises (its SIMD variants in libmvec are declared
// only under -ffast-math), so a host loop calling std::exp runs a few ns per
// element where NumPy's SIMD exp runs four to eight at once. These functions are
// written branch-free (clamps and selects, integer exponent arithmetic), so a
// call inside a function given to ufunc::vectorize compiles to SSE2/AVX2 code on
// the host (GCC at -O3, or -O2 -ftree-vectorize; AVX2 with -mavx2 or
// -march=native); on the device they are CUDA's own functions.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "config.hpp"

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
}  // namespace detail

/// e^x in float. Host: at most 1 ulp from the correctly rounded result over the
/// whole float range, subnormal results included (tests/test_math.cpp checks
/// every 251st bit pattern and every boundary against the double exp); inf for
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

}  // namespace ufunc::math
