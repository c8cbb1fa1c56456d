// ufunc::math (issue 37): exp against the double-precision exp rounded to float,
// in ulps, over the whole float range (every 4093rd bit pattern: about a million
// values of both signs, subnormal inputs and NaNs among them), every float near
// the overflow and underflow thresholds, and the special values; the same values
// through ufunc::vectorize on every target (the host's vectorised loop must give
// the scalar call's bits; the device runs CUDA's expf, within 2 ulp).
#include "test_support.hpp"

#include <ufunc/math.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace {

float from_u32(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
/// Distance in ulps between two non-NaN floats (through the ordered integer line).
long long ulp_distance(float a, float b) {
  auto key = [](float f) {
    std::int32_t i;
    std::memcpy(&i, &f, sizeof i);
    return i < 0 ? static_cast<long long>(std::numeric_limits<std::int32_t>::min()) - i : static_cast<long long>(i);
  };
  return std::llabs(key(a) - key(b));
}
float reference(float x) { return static_cast<float>(std::exp(static_cast<double>(x))); }

std::vector<float> test_values() {
  std::vector<float> v;
  for (std::uint64_t u = 0; u < (std::uint64_t(1) << 32); u += 4093) v.push_back(from_u32(static_cast<std::uint32_t>(u)));
  // Every float near the thresholds: overflow (88.72), the smallest subnormal
  // result (-103.28), rounding to zero (-103.97), and around 0.
  for (float c : {88.7228394f, -103.278931f, -103.972084f, -87.3365479f, 0.0f}) {
    float a = c, b = c;
    for (int i = 0; i < 3000; ++i) {
      v.push_back(a);
      v.push_back(b);
      a = std::nextafter(a, std::numeric_limits<float>::infinity());
      b = std::nextafter(b, -std::numeric_limits<float>::infinity());
    }
  }
  for (float s : {0.0f, -0.0f, std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                  std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::denorm_min(), 1.0f, -1.0f})
    v.push_back(s);
  return v;
}

template <class Tg>
std::vector<float> exp_on(const std::vector<float>& x) {
  const auto f = ufunc::vectorize<Tg>([] UFUNC_HD(float v) { return ufunc::math::exp(v); }, "math_exp");
  return f(ufunc::asarray<Tg>(x, ufunc::shape{static_cast<ufunc::index_t>(x.size())})).to_host();
}

}  // namespace

TEST_CASE("math::exp: within 1 ulp of the correctly rounded exp over the float range, host") {
  const auto x = test_values();
  long long worst = 0;
  float worst_x = 0;
  std::size_t bad = 0;
  for (float v : x) {
    const float got = ufunc::math::exp(v), want = reference(v);
    if (std::isnan(v)) {
      if (!std::isnan(got)) ++bad;
      continue;
    }
    const long long d = ulp_distance(got, want);
    if (d > worst) worst = d, worst_x = v;
    if (d > 1) ++bad;
  }
  INFO("worst " << worst << " ulp at x = " << worst_x);
  CHECK(bad == 0);
  CHECK(worst <= 1);
  // The vectorised loop gives the scalar call's bits.
  const auto y = exp_on<ufunc::target::host>(x);
  std::size_t differ = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const float s = ufunc::math::exp(x[i]);
    if (std::memcmp(&s, &y[i], sizeof s) != 0 && !(std::isnan(s) && std::isnan(y[i]))) ++differ;
  }
  CHECK(differ == 0);
}

#if defined(UFUNC_BACKEND_CUDA)
TEST_CASE("math::exp: CUDA's expf on the device, within 2 ulp") {
  const auto x = test_values();
  const auto y = exp_on<ufunc::target::device>(x);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(x[i])) {
      bad += !std::isnan(y[i]);
      continue;
    }
    bad += ulp_distance(y[i], reference(x[i])) > 2;
  }
  CHECK(bad == 0);
}
#endif
