// The host loops' instruction sets (detail/host/simd.hpp, issue 37): every set the
// CPU runs gives the bits of a scalar loop over the same function, for flat and
// broadcast (N-d) calls, expressions, several outputs, conversions, NaNs, and
// a * b + c (which a clone compiled with fp-contract on would fuse into an FMA).
// Fresh random data each run; sizes around the chunk and vector widths.
#include "test_support.hpp"

#include <ufunc/math.hpp>

#include <cuda/std/array>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <array>
#include <limits>
#include <random>
#include <string>
#if defined(__x86_64__) && defined(__GNUC__)
#  include <cpuid.h>
#endif
#include <vector>

using ufunc::index_t;
namespace host = ufunc::detail::host;

namespace {

/// Sets the instruction set in use for a scope (the detected one afterwards).
struct isa_scope {
  int old = host::simd_isa_in_use().load();
  explicit isa_scope(host::simd_isa isa) { host::simd_isa_in_use().store(static_cast<int>(isa)); }
  ~isa_scope() { host::simd_isa_in_use().store(old); }
};

const char* name_of(host::simd_isa isa) {
  switch (isa) {
    case host::simd_isa::avx512: return "avx512";
    case host::simd_isa::avx2: return "avx2";
    default: return "baseline";
  }
}

/// The sets this CPU runs, baseline first.
std::vector<host::simd_isa> runnable() {
  std::vector<host::simd_isa> v;
  for (int i = 0; i <= static_cast<int>(host::detect_simd_isa()); ++i) v.push_back(static_cast<host::simd_isa>(i));
  return v;
}

// Bit for bit, except that any NaN matches any NaN: which operand's NaN an x86
// instruction passes on depends on the operand order the compiler chose, which
// may differ between a vector loop and a scalar one.
bool same_bits(float a, float b) { return (a != a && b != b) || std::memcmp(&a, &b, sizeof a) == 0; }
bool same_bits(double a, double b) { return (a != a && b != b) || std::memcmp(&a, &b, sizeof a) == 0; }
bool same_bits(std::int64_t a, std::int64_t b) { return a == b; }

template <class T>
std::size_t count_diff(const std::vector<T>& got, const std::vector<T>& want) {
  REQUIRE(got.size() == want.size());
  std::size_t d = 0;
  for (std::size_t i = 0; i < got.size(); ++i) d += !same_bits(got[i], want[i]);
  return d;
}

/// Random floats of mixed scale, some NaN, infinite, zero of both signs and subnormal.
std::vector<float> mixed(std::size_t n, std::mt19937_64& g) {
  std::uniform_real_distribution<float> u(-4.0f, 4.0f);
  std::uniform_int_distribution<int> pick(0, 63), ex(-30, 30);
  std::vector<float> v(n);
  for (auto& x : v) {
    switch (pick(g)) {
      case 0: x = std::numeric_limits<float>::quiet_NaN(); break;
      case 1: x = -std::numeric_limits<float>::infinity(); break;
      case 2: x = -0.0f; break;
      case 3: x = std::numeric_limits<float>::denorm_min() * 7; break;
      default: x = std::ldexp(u(g), ex(g));
    }
  }
  return v;
}

constexpr auto fma_prone = [] UFUNC_HD(float a, float b, float c) noexcept { return a * b + c; };
constexpr auto pdf = [] UFUNC_HD(float x, float mu, float sigma) noexcept {
  const float z = (x - mu) / sigma;
  return ufunc::math::exp(-0.5f * z * z) * (0.3989422804014327f / sigma);
};
constexpr auto mixed_types = [] UFUNC_HD(float x, std::int32_t k, double d) noexcept {
  const float m = x < 0.5f ? x : 0.5f;  // NaN takes the second branch
  return static_cast<double>(m) * d + static_cast<double>(k) - std::sqrt(d * d + 1.0);
};
constexpr auto two_out = [] UFUNC_HD(float a, float b) noexcept {
  return cuda::std::make_tuple(a * b - a, static_cast<std::int64_t>(b * 1000.0f > 1e9f ? 0.0f : b * 1000.0f));
};

}  // namespace

TEST_CASE("host SIMD: UFUNC_HOST_SIMD caps the detected set") {
  const char* old = std::getenv("UFUNC_HOST_SIMD");
  const std::string keep = old ? old : "";
  unsetenv("UFUNC_HOST_SIMD");
  const host::simd_isa top = host::detect_simd_isa();
  MESSAGE("host loops compiled for: " << (UFUNC_HOST_DISPATCH ? "baseline, avx2, avx512" : "the build's own target")
                                      << "; this CPU runs: " << std::string(name_of(top)));
  setenv("UFUNC_HOST_SIMD", "baseline", 1);
  CHECK(host::detect_simd_isa() == host::simd_isa::baseline);
  setenv("UFUNC_HOST_SIMD", "avx2", 1);
  CHECK(static_cast<int>(host::detect_simd_isa()) <= static_cast<int>(host::simd_isa::avx2));
  setenv("UFUNC_HOST_SIMD", "avx512", 1);
  CHECK(host::detect_simd_isa() == top);
  if (old)
    setenv("UFUNC_HOST_SIMD", keep.c_str(), 1);
  else
    unsetenv("UFUNC_HOST_SIMD");
}

#if UFUNC_HOST_DISPATCH
namespace {
/// XINUSE's AVX upper-state bits (XGETBV with ECX = 1: bit 2, the upper halves of
/// ymm0-15; bit 6, of zmm0-15), or -1 where it cannot be read or does not mean it:
/// only Intel CPUs are checked (they are the ones whose legacy-SSE code pays for a
/// dirty upper state, and they report its clean state there).
long long upper_state_in_use() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(0, &a, &b, &c, &d) || !(b == 0x756e6547 && d == 0x49656e69 && c == 0x6c65746e)) return -1;  // GenuineIntel
  if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 27))) return -1;  // OSXSAVE
  if (__get_cpuid_max(0, nullptr) < 0xd) return -1;
  __cpuid_count(0xd, 1, a, b, c, d);
  if (!(a & (1u << 2))) return -1;  // XGETBV with ECX = 1
  unsigned lo = 0, hi = 0;
  asm volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(1));
  return static_cast<long long>(lo & ((1u << 2) | (1u << 6)));
}
}  // namespace

TEST_CASE("host SIMD: a clone leaves the vector registers' upper halves clean (vzeroupper at any -O level)") {
  // Without it, a -Og build's legacy-SSE code ran 20x slower after any AVX-512
  // clone on Intel (the host suite's pairwise case: 4.5 s alone, 100+ s after a matmul).
  using H = ufunc::target::host;
  std::mt19937_64 g(test::fresh_seed());
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> a(64 * 64), b(64 * 64);
  for (auto& v : a) v = u(g);
  for (auto& v : b) v = u(g);
  const auto A = ufunc::asarray<H>(a, ufunc::shape{64, 64}), B = ufunc::asarray<H>(b, ufunc::shape{64, 64});
  for (const host::simd_isa isa : runnable()) {
    CAPTURE(name_of(isa));
    isa_scope scope(isa);
    auto c = ufunc::matmul(A, B);  // simd_run_fused
    const long long after_matmul = upper_state_in_use();
    const float s = ufunc::sum(A);  // a plain sum (not cloned): the state must still be clean after it
    const long long after_sum = upper_state_in_use();
    if (after_matmul < 0) {
      MESSAGE("XINUSE not checked on this CPU");
      break;
    }
    CHECK(after_matmul == 0);
    CHECK(after_sum == 0);
    CHECK(std::isfinite(s));
    CHECK(c.size() == 64 * 64);
  }
}
#endif

TEST_CASE("host SIMD: every instruction set gives the scalar loop's bits") {
  using H = ufunc::target::host;
  std::mt19937_64 g(test::fresh_seed());
  const auto fma_f = ufunc::vectorize<H>(fma_prone, "fma_prone");
  const auto pdf_f = ufunc::vectorize<H>(pdf, "pdf");
  const auto mixed_f = ufunc::vectorize<H>(mixed_types, "mixed_types");
  const auto two_f = ufunc::vectorize<H>(two_out, "two_out");
  for (const index_t n : {index_t(0), index_t(1), index_t(7), index_t(33), index_t(1000), (index_t(1) << 16) + 3}) {
    const auto un = static_cast<std::size_t>(n);
    const auto a = mixed(un, g), b = mixed(un, g), c = mixed(un, g);
    std::vector<float> sig(un);
    std::uniform_real_distribution<float> s(0.25f, 3.0f);
    for (auto& x : sig) x = s(g);
    std::vector<std::int32_t> k(un);
    std::uniform_int_distribution<std::int32_t> ki(-100000, 100000);
    for (auto& x : k) x = ki(g);
    std::vector<double> d(un);
    std::uniform_real_distribution<double> du(-1e3, 1e3);
    for (auto& x : d) x = du(g);
    // References: the same functions in a plain loop of this translation unit.
    std::vector<float> r_fma(un), r_pdf(un), r_t0(un);
    std::vector<double> r_mix(un);
    std::vector<std::int64_t> r_t1(un);
    for (std::size_t i = 0; i < un; ++i) {
      r_fma[i] = fma_prone(a[i], b[i], c[i]);
      r_pdf[i] = pdf(a[i], b[i], sig[i]);
      r_mix[i] = mixed_types(a[i], k[i], d[i]);
      const auto t = two_out(a[i], sig[i]);
      r_t0[i] = cuda::std::get<0>(t);
      r_t1[i] = cuda::std::get<1>(t);
    }
    const ufunc::shape sh{n};
    const auto A = ufunc::asarray<H>(a, sh), B = ufunc::asarray<H>(b, sh), C = ufunc::asarray<H>(c, sh);
    const auto S = ufunc::asarray<H>(sig, sh);
    const auto K = ufunc::asarray<H>(k, sh);
    const auto D = ufunc::asarray<H>(d, sh);
    for (const host::simd_isa isa : runnable()) {
      CAPTURE(name_of(isa));
      CAPTURE(n);
      isa_scope scope(isa);
      CHECK(count_diff(fma_f(A, B, C).to_host(), r_fma) == 0);
      CHECK(count_diff(pdf_f(A, B, S).to_host(), r_pdf) == 0);
      CHECK(count_diff(mixed_f(A, K, D).to_host(), r_mix) == 0);
      const auto [t0, t1] = two_f(A, S);
      CHECK(count_diff(t0.to_host(), r_t0) == 0);
      CHECK(count_diff(t1.to_host(), r_t1) == 0);
      // A lazy expression: pdf(a * b + c, b, sigma) in one loop.
      const auto e = pdf_f.lazy(fma_f.lazy(A, B, C), B, S);
      std::vector<float> r_e(un);
      for (std::size_t i = 0; i < un; ++i) r_e[i] = pdf(fma_prone(a[i], b[i], c[i]), b[i], sig[i]);
      CHECK(count_diff(ufunc::evaluate(e).to_host(), r_e) == 0);
    }
  }
}

TEST_CASE("host SIMD: broadcast (N-d) calls give the scalar loop's bits on every instruction set") {
  using H = ufunc::target::host;
  std::mt19937_64 g(test::fresh_seed());
  const auto fma_f = ufunc::vectorize<H>(fma_prone, "fma_prone");
  const auto pdf_f = ufunc::vectorize<H>(pdf, "pdf");
  for (const auto& [rows, cols] : {std::pair<index_t, index_t>{1, 1}, {3, 17}, {129, 1}, {70, 1000}, {5, 20000}}) {
    const auto ur = static_cast<std::size_t>(rows), uc = static_cast<std::size_t>(cols);
    const auto x = mixed(ur * uc, g), col = mixed(ur, g), row = mixed(uc, g);
    std::vector<float> sig(uc);
    std::uniform_real_distribution<float> s(0.25f, 3.0f);
    for (auto& v : sig) v = s(g);
    std::vector<float> r_fma(ur * uc), r_pdf(ur * uc);
    for (std::size_t i = 0; i < ur; ++i)
      for (std::size_t j = 0; j < uc; ++j) {
        r_fma[i * uc + j] = fma_prone(x[i * uc + j], col[i], row[j]);
        r_pdf[i * uc + j] = pdf(x[i * uc + j], col[i], sig[j]);
      }
    const auto X = ufunc::asarray<H>(x, ufunc::shape{rows, cols});
    const auto Col = ufunc::asarray<H>(col, ufunc::shape{rows, 1});
    const auto Row = ufunc::asarray<H>(row, ufunc::shape{cols});
    const auto Sig = ufunc::asarray<H>(sig, ufunc::shape{1, cols});
    for (const host::simd_isa isa : runnable()) {
      CAPTURE(name_of(isa));
      CAPTURE(rows);
      CAPTURE(cols);
      isa_scope scope(isa);
      CHECK(count_diff(fma_f(X, Col, Row).to_host(), r_fma) == 0);
      CHECK(count_diff(pdf_f(X, Col, Sig).to_host(), r_pdf) == 0);
    }
  }
}

TEST_CASE("host SIMD: matmul on every instruction set (micro-kernel shapes and edges) against a double loop") {
  // The micro-kernel's tile is MR x NR = 12 x 2 vectors (AVX-512), 6 x 2 (AVX2),
  // 4 x 2 (SSE2); work items are 192 x 512 with k panels of 256: sizes on both
  // sides of each, batched and with a broadcast operand.
  using H = ufunc::target::host;
  std::mt19937_64 g(test::fresh_seed());
  std::uniform_real_distribution<double> u(-1, 1);
  const std::vector<std::array<index_t, 4>> cases{{1, 1, 1, 1}, {1, 13, 7, 33}, {2, 97, 300, 257}, {1, 200, 513, 31},
                                                   {3, 12, 32, 5}, {1, 6, 16, 0}};
  for (const auto& [batch, m, k, n] : cases) {
    std::vector<float> a(static_cast<std::size_t>(batch * m * k)), b(static_cast<std::size_t>(k * n));
    std::vector<double> ad(a.size()), bd(b.size());
    for (std::size_t i = 0; i < a.size(); ++i) ad[i] = a[i] = static_cast<float>(u(g));
    for (std::size_t i = 0; i < b.size(); ++i) bd[i] = b[i] = static_cast<float>(u(g));
    const auto A = ufunc::asarray<H>(a, ufunc::shape{batch, m, k});
    const auto B = ufunc::asarray<H>(b, ufunc::shape{k, n});  // broadcast over the batch
    for (const host::simd_isa isa : runnable()) {
      CAPTURE(name_of(isa));
      CAPTURE(m);
      CAPTURE(k);
      CAPTURE(n);
      isa_scope scope(isa);
      const auto c = ufunc::matmul(A, B).to_host();
      REQUIRE(c.size() == static_cast<std::size_t>(batch * m * n));
      std::size_t bad = 0;
      for (index_t z = 0; z < batch; ++z)
        for (index_t i = 0; i < m; ++i)
          for (index_t j = 0; j < n; ++j) {
            double want = 0, mag = 0;
            for (index_t q = 0; q < k; ++q) {
              const double t = ad[static_cast<std::size_t>((z * m + i) * k + q)] * bd[static_cast<std::size_t>(q * n + j)];
              want += t;
              mag += std::fabs(t);
            }
            const double got = c[static_cast<std::size_t>((z * m + i) * n + j)];
            bad += !(std::fabs(got - want) <= (static_cast<double>(k) + 2) * 6e-8 * mag);
          }
      CHECK(bad == 0);
    }
  }
}

TEST_CASE("host SIMD: reductions with a map (exp, a dot product) give the same bits on every set, within the pairwise bound") {
  using H = ufunc::target::host;
  std::mt19937_64 g(test::fresh_seed());
  std::uniform_real_distribution<float> u(-3.0f, 3.0f);
  const auto sum_exp = ufunc::map_reduce([] UFUNC_HD(float v) noexcept { return ufunc::math::exp(-v * v); }, ufunc::plus{});
  const auto dot = ufunc::map_reduce([] UFUNC_HD(float a, float b) noexcept { return a * b; }, ufunc::plus{});
  for (const index_t n : {index_t(1), index_t(9), index_t(129), index_t(1000), (index_t(1) << 17) + 5}) {
    const auto un = static_cast<std::size_t>(n);
    std::vector<float> x(un), y(un);
    for (auto& v : x) v = u(g);
    for (auto& v : y) v = u(g);
    double want_e = 0, want_d = 0, mag_d = 0;
    for (std::size_t i = 0; i < un; ++i) {
      want_e += std::exp(-double(x[i]) * x[i]);
      want_d += double(x[i]) * y[i];
      mag_d += std::fabs(double(x[i]) * y[i]);
    }
    const auto X = ufunc::asarray<H>(x, ufunc::shape{n}), Y = ufunc::asarray<H>(y, ufunc::shape{n});
    // Rows of a (rows, n / rows) view: the per-output path.
    const index_t rows = n % 5 == 0 ? 5 : 1;
    const auto X2 = ufunc::asarray<H>(x, ufunc::shape{rows, n / rows}), Y2 = ufunc::asarray<H>(y, ufunc::shape{rows, n / rows});
    float first_e = 0, first_d = 0;
    std::vector<float> first_rows;
    for (const host::simd_isa isa : runnable()) {
      CAPTURE(name_of(isa));
      CAPTURE(n);
      isa_scope scope(isa);
      const float e = sum_exp(X), d = dot(X, Y);
      const auto r = dot(X2, Y2, ufunc::axis(1)).to_host();
      const double bound = (std::log2(double(n)) + 32) * 6e-8;
      CHECK(std::fabs(e - want_e) <= (bound + 6e-8) * want_e);  // and exp's ulp per term
      CHECK(std::fabs(d - want_d) <= bound * mag_d);
      if (isa == host::simd_isa::baseline) {
        first_e = e, first_d = d, first_rows = r;
      } else {
        CHECK(same_bits(e, first_e));
        CHECK(same_bits(d, first_d));
        CHECK(count_diff(r, first_rows) == 0);
      }
    }
  }
}

TEST_CASE("host SIMD: pairwise reductions (a kernel sum over 3-D points) give the same bits on every set, within the bound") {
  // The pairwise engine's full groups of outputs run vectorised per set, a
  // partial group (the last K mod 16 outputs) on the scalar path: the same
  // order per output on both.
  using H = ufunc::target::host;
  using P3 = cuda::std::array<float, 3>;
  std::mt19937_64 g(test::fresh_seed());
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  const auto kde = ufunc::map_reduce(
      [] UFUNC_HD(const P3& p, const P3& q, float b) noexcept {
        const float dx = p[0] - q[0], dy = p[1] - q[1], dz = p[2] - q[2];
        return ufunc::math::exp(-0.5f * (dx * dx + dy * dy + dz * dz)) * b;
      },
      ufunc::plus{});
  for (const auto& km : {std::array<index_t, 2>{16, 1}, std::array<index_t, 2>{37, 700}, std::array<index_t, 2>{300, 1029}}) {
    const index_t k = km[0], m = km[1];
    const auto uk = static_cast<std::size_t>(k), um = static_cast<std::size_t>(m);
    std::vector<float> p(3 * uk), q(3 * um), b(um);
    for (auto& v : p) v = u(g);
    for (auto& v : q) v = u(g);
    for (auto& v : b) v = u(g);
    const auto P = ufunc::asarray<H>(p, ufunc::shape{k, 1, 3}), Q = ufunc::asarray<H>(q, ufunc::shape{1, m, 3});
    const auto B = ufunc::asarray<H>(b, ufunc::shape{1, m});
    std::vector<float> first;
    for (const host::simd_isa isa : runnable()) {
      CAPTURE(name_of(isa));
      CAPTURE(k);
      CAPTURE(m);
      isa_scope scope(isa);
      const auto r = kde(ufunc::vec<3>(P), ufunc::vec<3>(Q), B, ufunc::axis(1)).to_host();
      REQUIRE(r.size() == uk);
      std::size_t bad = 0;
      for (std::size_t i = 0; i < uk; ++i) {
        // The terms as the map computes them (float, no FMA: the same bits on
        // every set), summed in double: what is left is the summation's error,
        // the README's bound (log2(m) + 32) eps sum|t|.
        double want = 0, mag = 0;
        for (std::size_t j = 0; j < um; ++j) {
          const float dx = p[3 * i] - q[3 * j], dy = p[3 * i + 1] - q[3 * j + 1], dz = p[3 * i + 2] - q[3 * j + 2];
          const float t = ufunc::math::exp(-0.5f * (dx * dx + dy * dy + dz * dz)) * b[j];
          want += t, mag += std::fabs(t);
        }
        bad += !(std::fabs(r[i] - want) <= (std::log2(double(m)) + 32) * 0x1p-24 * mag);
      }
      CHECK(bad == 0);
      if (isa == host::simd_isa::baseline) first = r;
      else CHECK(count_diff(r, first) == 0);
    }
  }
}
