// ufunc::math (issue 37): exp, log, sin, cos, sqrt and hypot against the
// double-precision function rounded to float, in ulps, over the whole float
// range (every 4093rd bit pattern: about a million values of both signs,
// subnormal inputs and NaNs among them), dense runs of neighbouring floats at
// each function's critical points, and the special values (bit for bit); the
// same values through ufunc::vectorize on every target: the host's vectorised
// loop must give the scalar call's bits under each instruction set this CPU
// runs (detail/host/simd.hpp), and the device runs CUDA's own functions, within
// the ulps its programming guide states.
#include "test_support.hpp"

#include <ufunc/math.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <utility>
#include <vector>

namespace {

namespace host = ufunc::detail::host;
using lim = std::numeric_limits<float>;

float from_u32(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
std::uint32_t to_u32(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
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
/// Bit for bit, except that any NaN matches any NaN.
bool same_bits(float a, float b) { return (a != a && b != b) || to_u32(a) == to_u32(b); }

/// Every 4093rd bit pattern of the float range.
std::vector<float> whole_range() {
  std::vector<float> v;
  for (std::uint64_t u = 0; u < (std::uint64_t(1) << 32); u += 4093)
    v.push_back(from_u32(static_cast<std::uint32_t>(u)));
  return v;
}
/// c and the n floats on each side of it.
void add_around(std::vector<float>& v, float c, int n) {
  float a = c, b = c;
  v.push_back(c);
  for (int i = 0; i < n; ++i) {
    a = std::nextafter(a, lim::infinity());
    b = std::nextafter(b, -lim::infinity());
    v.push_back(a);
    v.push_back(b);
  }
}
void add_specials(std::vector<float>& v) {
  for (float s : {0.0f, -0.0f, lim::infinity(), -lim::infinity(), lim::quiet_NaN(), -lim::quiet_NaN(),
                  from_u32(0x7F800001u), lim::denorm_min(), -lim::denorm_min(), lim::min(), -lim::min(), lim::max(),
                  -lim::max(), 1.0f, -1.0f})
    v.push_back(s);
}

// The functions, as function objects (one type each, for host and device).
struct exp_fn {
  UFUNC_HD float operator()(float v) const { return ufunc::math::exp(v); }
  static float ref(float x) { return static_cast<float>(std::exp(static_cast<double>(x))); }
};
/// exp against expl rounded to float: a reference independent of the double exp.
struct exp_ld_fn {
  UFUNC_HD float operator()(float v) const { return ufunc::math::exp(v); }
  static float ref(float x) { return static_cast<float>(std::exp(static_cast<long double>(x))); }
};
struct log_fn {
  UFUNC_HD float operator()(float v) const { return ufunc::math::log(v); }
  static float ref(float x) { return static_cast<float>(std::log(static_cast<double>(x))); }
};
struct sin_fn {
  UFUNC_HD float operator()(float v) const { return ufunc::math::sin(v); }
  static float ref(float x) { return static_cast<float>(std::sin(static_cast<double>(x))); }
};
struct cos_fn {
  UFUNC_HD float operator()(float v) const { return ufunc::math::cos(v); }
  static float ref(float x) { return static_cast<float>(std::cos(static_cast<double>(x))); }
};
struct sqrt_fn {
  UFUNC_HD float operator()(float v) const { return ufunc::math::sqrt(v); }
  static float ref(float x) { return std::sqrt(x); }  // IEEE: correctly rounded
};
struct hypot_fn {
  UFUNC_HD float operator()(float a, float b) const { return ufunc::math::hypot(a, b); }
  static float ref(float x, float y) {
    return static_cast<float>(std::hypot(static_cast<double>(x), static_cast<double>(y)));
  }
};

template <class Tg, class F>
std::vector<float> on(const std::vector<float>& x) {
  const auto f = ufunc::vectorize<Tg>(F{}, "math_unary");
  return f(ufunc::asarray<Tg>(x, ufunc::shape{static_cast<ufunc::index_t>(x.size())})).to_host();
}
template <class Tg, class F>
std::vector<float> on(const std::vector<float>& x, const std::vector<float>& y) {
  const auto f = ufunc::vectorize<Tg>(F{}, "math_binary");
  const ufunc::shape sh{static_cast<ufunc::index_t>(x.size())};
  return f(ufunc::asarray<Tg>(x, sh), ufunc::asarray<Tg>(y, sh)).to_host();
}

/// got against want: NaN where want is NaN, else within `bound` ulps; the worst
/// distance and where.
struct ulp_report {
  long long worst = 0;
  std::size_t at = 0, over = 0, nan_mismatch = 0;
  void add(float got, float want, long long bound, std::size_t i) {
    if (std::isnan(want) || std::isnan(got)) {
      nan_mismatch += std::isnan(want) != std::isnan(got);
      return;
    }
    const long long d = ulp_distance(got, want);
    if (d > worst) worst = d, at = i;
    over += d > bound;
  }
};

/// The instruction sets this CPU runs, baseline first.
std::vector<host::simd_isa> runnable() {
  std::vector<host::simd_isa> v;
  for (int i = 0; i <= static_cast<int>(host::detect_simd_isa()); ++i) v.push_back(static_cast<host::simd_isa>(i));
  return v;
}
/// Sets the instruction set in use for a scope (the previous one afterwards).
struct isa_scope {
  int old = host::simd_isa_in_use().load();
  explicit isa_scope(host::simd_isa isa) { host::simd_isa_in_use().store(static_cast<int>(isa)); }
  ~isa_scope() { host::simd_isa_in_use().store(old); }
};

/// The host checks of a unary function: the scalar call within `bound` ulps of
/// F::ref over x, and the vectorised host loop, under each instruction set,
/// giving the scalar call's bits. Returns the scalar results.
template <class F>
std::vector<float> check_host(const std::vector<float>& x, long long bound) {
  std::vector<float> s(x.size());
  ulp_report r;
  for (std::size_t i = 0; i < x.size(); ++i) r.add(s[i] = F{}(x[i]), F::ref(x[i]), bound, i);
  char bits[16];
  std::snprintf(bits, sizeof bits, "0x%08X", static_cast<unsigned>(to_u32(x[r.at])));
  INFO("worst " << r.worst << " ulp at x = " << x[r.at] << " (bits " << bits << "), " << x.size() << " values");
  CHECK(r.nan_mismatch == 0);
  CHECK(r.over == 0);
  CHECK(r.worst <= bound);
  for (const host::simd_isa isa : runnable()) {
    CAPTURE(static_cast<int>(isa));
    isa_scope scope(isa);
    const auto y = on<ufunc::target::host, F>(x);
    std::size_t differ = 0;
    for (std::size_t i = 0; i < x.size(); ++i) differ += !same_bits(y[i], s[i]);
    CHECK(differ == 0);
  }
  return s;
}

#if defined(UFUNC_BACKEND_CUDA)
/// The device's results within `bound` ulps of F::ref (CUDA's documented bound).
template <class F>
void check_device(const std::vector<float>& x, long long bound) {
  const auto y = on<ufunc::target::device, F>(x);
  ulp_report r;
  for (std::size_t i = 0; i < x.size(); ++i) r.add(y[i], F::ref(x[i]), bound, i);
  INFO("worst " << r.worst << " ulp at x = " << x[r.at]);
  CHECK(r.nan_mismatch == 0);
  CHECK(r.over == 0);
}
#endif

// ---------------------------------------------------------------- the values

std::vector<float> exp_values() {
  auto v = whole_range();
  // Every float near the thresholds: overflow (88.72), the smallest subnormal
  // result (-103.28), rounding to zero (-103.97), and around 0.
  for (float c : {88.7228394f, -103.278931f, -103.972084f, -87.3365479f, 0.0f}) add_around(v, c, 3000);
  add_specials(v);
  return v;
}

/// Every float whose exp is subnormal or rounds to 0 near the smallest
/// subnormal (x in [-104, -87.3]: 2.2 million), every float from 88 up to the
/// first inf and a little past it, and every 1021st bit pattern of the range.
std::vector<float> exp_dense_values() {
  std::vector<float> v;
  for (std::uint32_t u = to_u32(-87.3f); u <= to_u32(-104.0f); ++u) v.push_back(from_u32(u));
  for (std::uint32_t u = to_u32(88.0f); u <= to_u32(88.75f); ++u) v.push_back(from_u32(u));
  for (std::uint64_t u = 0; u < (std::uint64_t(1) << 32); u += 1021) v.push_back(from_u32(static_cast<std::uint32_t>(u)));
  add_specials(v);
  return v;
}

std::vector<float> log_values() {
  auto v = whole_range();
  add_around(v, 1.0f, 5000);                  // log x ~ x - 1: relative accuracy near 1
  add_around(v, from_u32(0x3F3504F3u), 1000);  // sqrt(1/2): where the exponent k changes
  add_around(v, std::sqrt(2.0f), 1000);
  add_around(v, lim::min(), 2000);             // normal / subnormal boundary
  add_around(v, lim::max(), 1000);
  for (std::uint32_t u = 1; u < 3000; ++u) v.push_back(from_u32(u));  // the smallest subnormals
  for (int e = -149; e <= 127; ++e) add_around(v, std::ldexp(1.0f, e), 16);
  add_specials(v);
  return v;
}

std::vector<float> sincos_values() {
  auto v = whole_range();
  // The floats nearest the multiples of pi/2 (the reduced argument nearly
  // cancels there), small and huge; k pi/2 for k to 2^20 by steps, and some
  // multiples near the top of the range.
  for (double k = 1; k < 1 << 20; k = k < 64 ? k + 1 : k * 1.37)
    add_around(v, static_cast<float>(std::floor(k) * 1.5707963267948966), 64);
  for (float c : {1e38f, 3e38f, 1e30f, 1e20f, 1e10f, 65536.0f, 105615.0f, 823549.6f}) add_around(v, c, 1000);
  // The floats closest to a multiple of pi/2 over the whole range, found by a
  // search of every float: 16367173 2^72 (|x mod pi/2| = 1.6e-9, the least of
  // all), then the next ones, odd and even multiples; and 0x1.4555p+51, where
  // cos's result lies 1.3e-9 ulp from a midpoint.
  for (std::uint32_t u : {0x6F79BE45u, 0x50A3E87Fu, 0x6FF9BE45u, 0x5123E87Fu, 0x437CE5F1u, 0x7079BE45u, 0x6A1976F1u,
                          0x53B146A6u, 0x65898498u, 0x43FCE5F1u, 0x5922AA80u, 0x3FC90FDBu /* pi/2 */, 0x40490FDBu /* pi */,
                          0x40C90FDBu /* 2 pi */})
    add_around(v, from_u32(u), 256);
  add_around(v, 0.5f, 1000);  // the switch between r = x and the reduction
  for (int e = -149; e <= 127; ++e) add_around(v, std::ldexp(1.0f, e), 8);  // each exponent's table words
  add_specials(v);
  return v;
}

std::vector<float> sqrt_values() {
  auto v = whole_range();
  for (float c : {1.0f, 2.0f, 4.0f, 0.25f, lim::min(), lim::max()}) add_around(v, c, 2000);
  for (std::uint32_t u = 1; u < 3000; ++u) v.push_back(from_u32(u));
  for (int k = 1; k < 5000; ++k) v.push_back(static_cast<float>(k) * static_cast<float>(k));  // exact squares
  // x next to the square of a midpoint between two floats: where rounding the
  // square root is hardest (the midpoint's square is exact in double).
  std::mt19937_64 g(37);
  for (int i = 0; i < 20000; ++i) {
    const float r = from_u32(static_cast<std::uint32_t>(g() % 0x7F000000u) + 0x00800000u);
    const double m = 0.5 * (static_cast<double>(r) + static_cast<double>(std::nextafter(r, lim::infinity())));
    const float x = static_cast<float>(m * m);
    if (std::isfinite(x)) add_around(v, x, 1);
  }
  add_specials(v);
  return v;
}

/// hypot's pairs: random bit patterns (all exponents, NaN and inf among them),
/// pairs of nearby exponents, near overflow and underflow, and the specials.
std::pair<std::vector<float>, std::vector<float>> hypot_values() {
  std::vector<float> a, b;
  std::mt19937_64 g(1137);
  for (int i = 0; i < 400000; ++i) {
    const std::uint64_t r = g();
    const std::uint32_t ua = static_cast<std::uint32_t>(r);
    std::uint32_t ub = static_cast<std::uint32_t>(r >> 32);
    if (i % 2) {  // y's exponent within 12 of x's
      const int e = static_cast<int>((ua >> 23) & 0xFF) + static_cast<int>(ub % 25) - 12;
      ub = (ub & 0x807FFFFFu) | (static_cast<std::uint32_t>(e < 0 ? 0 : e > 254 ? 254 : e) << 23);
    }
    a.push_back(from_u32(ua));
    b.push_back(from_u32(ub));
  }
  std::uniform_real_distribution<float> u(0.5f, 2.0f);
  for (int i = 0; i < 20000; ++i) {
    const float s = u(g), t = u(g);
    for (float scale : {1.7e38f, 2.4e38f, 1.8e19f, 1e-19f, 1e-23f, 1e-38f, 1e-44f}) {
      a.push_back(s * scale);
      b.push_back(t * scale);
    }
    a.push_back(s * lim::max());  // hypot overflows (or not) exactly at the top
    b.push_back(t * 1e38f);
    a.push_back(from_u32(static_cast<std::uint32_t>(g() % 0x00800000u)));  // two subnormals
    b.push_back(from_u32(static_cast<std::uint32_t>(g() % 0x00800000u)));
  }
  const float specials[] = {0.0f, -0.0f, 1.0f, -3.0f, lim::denorm_min(), lim::max(), lim::infinity(),
                            -lim::infinity(), lim::quiet_NaN(), -lim::quiet_NaN()};
  for (float x : specials)
    for (float y : specials) a.push_back(x), b.push_back(y);
  return {a, b};
}

/// Exact results: v(x) must have the bits of `want` (any NaN for NaN).
template <class F>
void check_exact(std::initializer_list<std::pair<float, float>> cases) {
  for (const auto& c : cases) {
    const float x = c.first;
    CAPTURE(x);
    CHECK(same_bits(F{}(x), c.second));
  }
}

}  // namespace

TEST_CASE("math::exp: within 1 ulp of the correctly rounded exp over the float range, host") {
  check_host<exp_fn>(exp_values(), 1);
  check_exact<exp_fn>({{0.0f, 1.0f}, {-0.0f, 1.0f}, {lim::infinity(), lim::infinity()}, {-lim::infinity(), 0.0f},
                       {lim::quiet_NaN(), lim::quiet_NaN()}, {-lim::quiet_NaN(), lim::quiet_NaN()},
                       {from_u32(0x7F800001u), lim::quiet_NaN()},
                       // The last finite and the first inf, the last nonzero and the first +0
                       // (the correctly rounded results there, from expl).
                       {from_u32(0x42B17217u), from_u32(0x7F7FFF84u)}, {88.7228394f, lim::infinity()},
                       {from_u32(0xC2CFF1B4u), lim::denorm_min()}, {-103.972084f, 0.0f}, {-lim::max(), 0.0f},
                       {lim::max(), lim::infinity()}, {1.0f, 2.71828183f}, {-1.0f, 0.367879441f}});
}

TEST_CASE("math::exp: within 1 ulp of expl, densely: every subnormal result, every input near overflow, host") {
  check_host<exp_ld_fn>(exp_dense_values(), 1);
}

TEST_CASE("math::log: within 1 ulp of the correctly rounded log (subnormal inputs included), host") {
  check_host<log_fn>(log_values(), 1);
  check_exact<log_fn>({{1.0f, 0.0f}, {0.0f, -lim::infinity()}, {-0.0f, -lim::infinity()},
                       {lim::infinity(), lim::infinity()}, {-lim::infinity(), lim::quiet_NaN()},
                       {-1.0f, lim::quiet_NaN()}, {-lim::denorm_min(), lim::quiet_NaN()},
                       {lim::quiet_NaN(), lim::quiet_NaN()}, {lim::denorm_min(), -103.278931f}, {2.0f, 0.693147182f},
                       {lim::max(), 88.7228394f}});
}

TEST_CASE("math::sin and math::cos: within 1 ulp of the correctly rounded results over the whole float range, host") {
  const auto x = sincos_values();
  check_host<sin_fn>(x, 1);
  check_host<cos_fn>(x, 1);
  check_exact<sin_fn>({{0.0f, 0.0f}, {-0.0f, -0.0f}, {lim::denorm_min(), lim::denorm_min()},
                       {-lim::denorm_min(), -lim::denorm_min()}, {lim::infinity(), lim::quiet_NaN()},
                       {-lim::infinity(), lim::quiet_NaN()}, {lim::quiet_NaN(), lim::quiet_NaN()}});
  check_exact<cos_fn>({{0.0f, 1.0f}, {-0.0f, 1.0f}, {lim::denorm_min(), 1.0f}, {lim::infinity(), lim::quiet_NaN()},
                       {-lim::infinity(), lim::quiet_NaN()}, {lim::quiet_NaN(), lim::quiet_NaN()}});
}

TEST_CASE("math::sqrt: correctly rounded (the bits of std::sqrt), host") {
  check_host<sqrt_fn>(sqrt_values(), 0);
  // Bits, signed zeros included (ulp_distance does not tell -0 from +0).
  check_exact<sqrt_fn>({{0.0f, 0.0f}, {-0.0f, -0.0f}, {1.0f, 1.0f}, {4.0f, 2.0f}, {lim::infinity(), lim::infinity()},
                        {-lim::infinity(), lim::quiet_NaN()}, {-1.0f, lim::quiet_NaN()},
                        {-lim::denorm_min(), lim::quiet_NaN()}, {lim::quiet_NaN(), lim::quiet_NaN()},
                        {lim::denorm_min(), std::sqrt(lim::denorm_min())}, {lim::max(), std::sqrt(lim::max())}});
}

TEST_CASE("math::hypot: within 1 ulp of the correctly rounded hypot, no spurious overflow or underflow, host") {
  const auto ab = hypot_values();  // (no structured bindings: INFO captures them in a lambda)
  const auto& a = ab.first;
  const auto& b = ab.second;
  std::vector<float> s(a.size());
  ulp_report r;
  for (std::size_t i = 0; i < a.size(); ++i) r.add(s[i] = hypot_fn{}(a[i], b[i]), hypot_fn::ref(a[i], b[i]), 1, i);
  INFO("worst " << r.worst << " ulp at (" << a[r.at] << ", " << b[r.at] << "), " << a.size() << " pairs");
  CHECK(r.nan_mismatch == 0);
  CHECK(r.over == 0);
  CHECK(r.worst <= 1);
  for (const host::simd_isa isa : runnable()) {
    CAPTURE(static_cast<int>(isa));
    isa_scope scope(isa);
    const auto y = on<ufunc::target::host, hypot_fn>(a, b);
    std::size_t differ = 0;
    for (std::size_t i = 0; i < a.size(); ++i) differ += !same_bits(y[i], s[i]);
    CHECK(differ == 0);
  }
  const float inf = lim::infinity(), nan = lim::quiet_NaN();
  const hypot_fn h;
  // C99: inf if either is infinite, even when the other is NaN.
  CHECK(same_bits(h(inf, nan), inf));
  CHECK(same_bits(h(nan, -inf), inf));
  CHECK(same_bits(h(-inf, 1.0f), inf));
  CHECK(std::isnan(h(nan, 1.0f)));
  CHECK(std::isnan(h(0.0f, nan)));
  CHECK(same_bits(h(-0.0f, -0.0f), 0.0f));
  CHECK(same_bits(h(3.0f, -4.0f), 5.0f));
  CHECK(same_bits(h(lim::max(), lim::max()), inf));                          // overflows: the result does not fit
  CHECK(same_bits(h(lim::max(), 1.0f), lim::max()));
  CHECK(same_bits(h(3e19f, 4e19f), 5e19f));                                  // x^2 would overflow in float
  CHECK(same_bits(h(3e-30f, 4e-30f), 5e-30f));                               // x^2 would underflow in float
  CHECK(same_bits(h(lim::denorm_min(), 0.0f), lim::denorm_min()));
}

#if defined(UFUNC_BACKEND_CUDA)
// CUDA's own functions on the device, within the maximum ulp errors of the CUDA
// C++ Programming Guide's table of single-precision functions: expf 2, logf 1,
// sinf 2, cosf 2, sqrtf 0 (the default -prec-sqrt=true), hypotf 3.
TEST_CASE("math: CUDA's expf, logf, sinf, cosf, sqrtf and hypotf on the device, within their documented ulps") {
  check_device<exp_fn>(exp_values(), 2);
  check_device<log_fn>(log_values(), 1);
  const auto x = sincos_values();
  check_device<sin_fn>(x, 2);
  check_device<cos_fn>(x, 2);
  check_device<sqrt_fn>(sqrt_values(), 0);
  const auto ab = hypot_values();  // (no structured bindings: INFO captures them in a lambda)
  const auto& a = ab.first;
  const auto& b = ab.second;
  const auto y = on<ufunc::target::device, hypot_fn>(a, b);
  ulp_report r;
  for (std::size_t i = 0; i < a.size(); ++i) r.add(y[i], hypot_fn::ref(a[i], b[i]), 3, i);
  INFO("worst " << r.worst << " ulp at (" << a[r.at] << ", " << b[r.at] << ")");
  CHECK(r.nan_mismatch == 0);
  CHECK(r.over == 0);
}
#endif
