// ufunc::random (issue 41, first step): the Philox4_32_10 stream against cuRAND's
// own device functions (curand_kernel.h compiled for the host here, and for the
// device in CUDA builds): bit for bit for the raw draws and uniforms on every
// target; normals bit for bit where both use the same sine (the same target),
// on fresh random seeds, subsequences and offsets (counter carries included).
#include "test_support.hpp"

#include <cuda_runtime.h>
// cuRAND's generator functions as host and device code (they are __device__ only).
#define QUALIFIERS static inline __host__ __device__
#include <curand_kernel.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace random_test {

using host = ufunc::target::host;

struct curand_uniforms {  // element i: the i-th curand_uniform after curand_init(seed, 0, 0)
  float* out;
  unsigned long long seed;
  UFUNC_HD void operator()(std::size_t i) const {
    curandStatePhilox4_32_10_t s;
    curand_init(seed, 0ull, static_cast<unsigned long long>(i), &s);
    out[i] = curand_uniform(&s);
  }
};
struct curand_normals {  // element i: the i-th curand_normal after curand_init(seed, 0, 0)
  float* out;
  unsigned long long seed;
  UFUNC_HD void operator()(std::size_t i) const {
    curandStatePhilox4_32_10_t s;
    curand_init(seed, 0ull, static_cast<unsigned long long>(i & ~std::size_t(1)), &s);
    const float a = curand_normal(&s), b = curand_normal(&s);
    out[i] = (i & 1) ? b : a;
  }
};

template <class Tg>
void compare_arrays(unsigned long long seed, ufunc::index_t n) {
  CAPTURE(seed);
  CAPTURE(n);
  const auto u = ufunc::random::uniform<float, Tg>(ufunc::shape{n}, seed);
  auto ref = ufunc::empty<float, Tg>(ufunc::shape{n});
  ufunc::parallel_for<Tg>(static_cast<std::size_t>(n), curand_uniforms{ref.data(), seed});
  const auto uh = u.to_host(), rh = ref.to_host();
  int bad = 0;
  for (std::size_t i = 0; i < uh.size(); ++i) bad += uh[i] != rh[i];
  CHECK(bad == 0);
  const auto z = ufunc::random::normal<float, Tg>(ufunc::shape{n}, seed);
  ufunc::parallel_for<Tg>(static_cast<std::size_t>(n), curand_normals{ref.data(), seed});
  const auto zh = z.to_host(), rz = ref.to_host();
  bad = 0;
  for (std::size_t i = 0; i < zh.size(); ++i) bad += zh[i] != rz[i];
  CHECK(bad == 0);
}

}  // namespace random_test

using namespace random_test;

TEST_CASE("random: the philox generator is cuRAND's for any seed, subsequence and offset (raw, uniform, normal)") {
  std::mt19937_64 g(test::fresh_seed());
  for (int t = 0; t < 200; ++t) {
    const std::uint64_t seed = g(), sub = t % 3 == 0 ? 0 : g() >> (t % 64), off = t % 5 == 0 ? 0 : g() >> (t % 64);
    CAPTURE(seed);
    CAPTURE(sub);
    CAPTURE(off);
    curandStatePhilox4_32_10_t s;
    curand_init(seed, sub, off, &s);
    ufunc::random::philox p(seed, sub, off);
    int bad = 0;
    for (int k = 0; k < 11; ++k) bad += p() != curand(&s);  // across block boundaries
    for (int k = 0; k < 9; ++k) bad += p.uniform() != curand_uniform(&s);
    for (int k = 0; k < 9; ++k) bad += p.normal() != curand_normal(&s);  // odd count: the kept value too
    for (int k = 0; k < 5; ++k) bad += p() != curand(&s);
    CHECK(bad == 0);
  }
  // Counters that carry out of 32 and 64 bits.
  for (std::uint64_t off : {4ull * 0xFFFFFFFFull, 4ull * 0xFFFFFFFFull + 3, ~0ull - 2}) {
    curandStatePhilox4_32_10_t s;
    curand_init(7, ~0ull, off, &s);
    ufunc::random::philox p(7, ~0ull, off);
    int bad = 0;
    for (int k = 0; k < 12; ++k) bad += p() != curand(&s);
    CHECK(bad == 0);
  }
}

TEST_CASE("random: uniform_at and normal_at are the stream's draws; arrays on every target equal cuRAND's") {
  std::mt19937_64 g(test::fresh_seed());
  for (int t = 0; t < 50; ++t) {
    const std::uint64_t seed = g(), index = g() >> (t % 64);
    curandStatePhilox4_32_10_t s;
    curand_init(seed, 0, index, &s);
    CHECK(ufunc::random::uniform_at(seed, index) == curand_uniform(&s));
    curand_init(seed, 0, index & ~1ull, &s);
    const float a = curand_normal(&s), b = curand_normal(&s);
    CHECK(ufunc::random::normal_at(seed, index) == ((index & 1) ? b : a));
  }
  for (ufunc::index_t n : {ufunc::index_t(0), ufunc::index_t(1), ufunc::index_t(7), ufunc::index_t(100003)})
    compare_arrays<host>(g(), n);
#if defined(UFUNC_BACKEND_CUDA)
  compare_arrays<ufunc::target::device>(g(), 1 << 20);
  // Uniforms equal on both targets bit for bit (normals differ by __sincosf).
  const auto seed = g();
  const auto d = ufunc::random::uniform<float>(ufunc::shape{4097}, seed).to_host();
  const auto h = ufunc::random::uniform<float, host>(ufunc::shape{4097}, seed).to_host();
  CHECK(d == h);
#endif
}

TEST_CASE("random: scaled arrays, moments, shapes and errors") {
  const std::uint64_t seed = test::fresh_seed();
  const ufunc::index_t n = 1 << 20;
  const auto u = ufunc::random::uniform<float, host>(ufunc::shape{n / 1024, 1024}, seed, -2.f, 3.f).to_host();
  double m = 0, lo = 1e9, hi = -1e9;
  for (float v : u) m += v, lo = std::min(lo, double(v)), hi = std::max(hi, double(v));
  m /= double(n);
  // low + (high - low) u with u in (0, 1] rounds to low itself when (high - low) u
  // is below half an ulp of low (u < ~2^-25 here: one draw in 2^20 about 3 % of
  // the runs), so the range is [low, high]; each element's formula is checked exactly below.
  CHECK(lo >= -2.0);
  CHECK(hi <= 3.0);
  CHECK(std::fabs(m - 0.5) < 5 * 5.0 / std::sqrt(12.0 * double(n)));  // five standard errors
  const auto z = ufunc::random::normal<float, host>(ufunc::shape{n}, seed + 1, 10.f, 2.f).to_host();
  double zm = 0, zv = 0;
  for (float v : z) zm += v;
  zm /= double(n);
  for (float v : z) zv += (v - zm) * (v - zm);
  zv /= double(n - 1);
  CHECK(std::fabs(zm - 10.0) < 5 * 2.0 / std::sqrt(double(n)));
  CHECK(std::fabs(zv - 4.0) < 5 * 4.0 * std::sqrt(2.0 / double(n)));
  // Element i of a scaled array is low + (high - low) * the i-th draw.
  const auto unit = ufunc::random::uniform<float, host>(ufunc::shape{n / 1024, 1024}, seed).to_host();
  int bad = 0;
  for (std::size_t i = 0; i < u.size(); ++i) bad += u[i] != -2.f + 5.f * unit[i];
  CHECK(bad == 0);
  auto negative = [&] { return ufunc::random::normal<float, host>(ufunc::shape{4}, seed, 0.f, -1.f); };
  CHECK_THROWS_AS((void)negative(), ufunc::value_error);
  CHECK(ufunc::random::uniform<float, host>(ufunc::shape{3, 0}, seed).size() == 0);
}

namespace random_test {

struct curand_uniform_doubles {  // element i: value i of curand_uniform2_double's stream
  double* out;
  unsigned long long seed;
  UFUNC_HD void operator()(std::size_t i) const {
    curandStatePhilox4_32_10_t s;
    curand_init(seed, 0ull, static_cast<unsigned long long>(4 * (i / 2)), &s);
    const double2 d = curand_uniform2_double(&s);
    out[i] = (i & 1) ? d.y : d.x;
  }
};
struct curand_normal_doubles {  // element i: the i-th curand_normal_double after curand_init(seed, 0, 0)
  double* out;
  unsigned long long seed;
  UFUNC_HD void operator()(std::size_t i) const {
    curandStatePhilox4_32_10_t s;
    curand_init(seed, 0ull, static_cast<unsigned long long>(4 * (i / 2)), &s);
    const double a = curand_normal_double(&s), b = curand_normal_double(&s);
    out[i] = (i & 1) ? b : a;
  }
};

template <class T, class Ref, class Make>
void compare_double_arrays(unsigned long long seed, ufunc::index_t n, Make make) {
  CAPTURE(seed);
  CAPTURE(n);
  const auto a = make(seed, n);
  using Tg = typename decltype(a)::target_type;
  auto ref = ufunc::empty<T, Tg>(ufunc::shape{n});
  ufunc::parallel_for<Tg>(static_cast<std::size_t>(n), Ref{ref.data(), seed});
  const auto ah = a.to_host(), rh = ref.to_host();
  int bad = 0;
  for (std::size_t i = 0; i < ah.size(); ++i) bad += ah[i] != rh[i];
  CHECK(bad == 0);
}

/// The reference integer: four curand() draws from curand_init(seed, 0, 4 i) as a
/// 128-bit x (the first draw lowest), low + floor(x m / 2^128) in 128-bit host arithmetic.
template <class T>
T reference_integer(unsigned long long seed, std::uint64_t i, T low, T high) {
  curandStatePhilox4_32_10_t s;
  curand_init(seed, 0ull, 4 * i, &s);
  unsigned __int128 x = 0;
  for (int k = 0; k < 4; ++k) x |= static_cast<unsigned __int128>(curand(&s)) << (32 * k);
  const std::uint64_t m = static_cast<std::uint64_t>(high) - static_cast<std::uint64_t>(low);
  const unsigned __int128 xl = static_cast<std::uint64_t>(x), xh = static_cast<std::uint64_t>(x >> 64);
  const unsigned __int128 r = ((xh * m) + ((xl * m) >> 64)) >> 64;
  return static_cast<T>(static_cast<std::uint64_t>(low) + static_cast<std::uint64_t>(r));
}

template <class T, class Tg>
void check_integers(std::uint64_t seed, T low, T high, ufunc::index_t n) {
  CAPTURE(seed);
  CAPTURE(+low);
  CAPTURE(+high);
  const auto a = ufunc::random::integers<T, Tg>(ufunc::shape{n}, seed, low, high).to_host();
  int bad = 0, out_of_range = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    bad += a[i] != reference_integer<T>(seed, i, low, high);
    out_of_range += !(a[i] >= low && a[i] < high);
  }
  CHECK(bad == 0);
  CHECK(out_of_range == 0);
}

}  // namespace random_test

TEST_CASE("random: double draws are cuRAND's curand_uniform2_double and curand_normal_double streams") {
  std::mt19937_64 g(test::fresh_seed());
  for (int t = 0; t < 50; ++t) {
    const std::uint64_t seed = g(), index = g() >> (1 + t % 63);
    curandStatePhilox4_32_10_t s;
    curand_init(seed, 0, 4 * (index / 2), &s);
    const double2 u = curand_uniform2_double(&s);
    CHECK(ufunc::random::uniform_at<double>(seed, index) == ((index & 1) ? u.y : u.x));
    curand_init(seed, 0, 4 * (index / 2), &s);
    const double a = curand_normal_double(&s), b = curand_normal_double(&s);
    CHECK(ufunc::random::normal_at<double>(seed, index) == ((index & 1) ? b : a));
  }
  for (ufunc::index_t n : {ufunc::index_t(0), ufunc::index_t(5), ufunc::index_t(40001)}) {
    compare_double_arrays<double, curand_uniform_doubles>(g(), n, [](auto seed, auto m) {
      return ufunc::random::uniform<double, host>(ufunc::shape{m}, seed);
    });
    compare_double_arrays<double, curand_normal_doubles>(g(), n, [](auto seed, auto m) {
      return ufunc::random::normal<double, host>(ufunc::shape{m}, seed);
    });
  }
#if defined(UFUNC_BACKEND_CUDA)
  compare_double_arrays<double, curand_uniform_doubles>(g(), 1 << 18, [](auto seed, auto m) {
    return ufunc::random::uniform<double>(ufunc::shape{m}, seed);
  });
  compare_double_arrays<double, curand_normal_doubles>(g(), 1 << 18, [](auto seed, auto m) {
    return ufunc::random::normal<double>(ufunc::shape{m}, seed);
  });
  const auto seed = g();
  CHECK(ufunc::random::uniform<double>(ufunc::shape{999}, seed).to_host() ==
        ufunc::random::uniform<double, host>(ufunc::shape{999}, seed).to_host());
#endif
  // Moments of a scaled double array (five standard errors).
  const ufunc::index_t n = 1 << 18;
  const auto z = ufunc::random::normal<double, host>(ufunc::shape{n}, g(), -3.0, 0.5).to_host();
  double m = 0;
  for (double v : z) m += v;
  m /= double(n);
  CHECK(std::fabs(m + 3.0) < 5 * 0.5 / std::sqrt(double(n)));
}

TEST_CASE("random: 16-bit draws are the float draws rounded once") {
  const std::uint64_t seed = test::fresh_seed();
  const ufunc::index_t n = 10007;
  const auto f = ufunc::random::uniform<float, host>(ufunc::shape{n}, seed, -1.f, 3.f).to_host();
  const auto h = ufunc::random::uniform<__half, host>(ufunc::shape{n}, seed, __float2half(-1.f), __float2half(3.f)).to_host();
  const auto zf = ufunc::random::normal<float, host>(ufunc::shape{n}, seed + 1, 2.f, 0.25f).to_host();
  const auto zb = ufunc::random::normal<__nv_bfloat16, host>(ufunc::shape{n}, seed + 1, __float2bfloat16(2.f),
                                                             __float2bfloat16(0.25f)).to_host();
  int bad = 0;
  for (std::size_t i = 0; i < f.size(); ++i) {
    bad += __half2float(h[i]) != __half2float(__float2half_rn(f[i]));
    bad += __bfloat162float(zb[i]) != __bfloat162float(__float2bfloat16_rn(zf[i]));
  }
  CHECK(bad == 0);
#if defined(UFUNC_BACKEND_CUDA)
  const auto hd = ufunc::random::uniform<__half>(ufunc::shape{n}, seed, __float2half(-1.f), __float2half(3.f)).to_host();
  bad = 0;
  for (std::size_t i = 0; i < hd.size(); ++i) bad += __half2float(hd[i]) != __half2float(h[i]);
  CHECK(bad == 0);
#endif
}

TEST_CASE("random: integers in [low, high) against a 128-bit reference, uniform counts, errors") {
  std::mt19937_64 g(test::fresh_seed());
  check_integers<std::int8_t, host>(g(), -5, 7, 3001);
  check_integers<std::int32_t, host>(g(), INT32_MIN, INT32_MAX, 3001);
  check_integers<std::uint16_t, host>(g(), 1, 2, 17);  // a range of one value
  check_integers<std::int64_t, host>(g(), INT64_MIN, INT64_MAX, 3001);
  check_integers<std::uint64_t, host>(g(), 3, UINT64_MAX, 3001);
  check_integers<std::int64_t, host>(g(), -1000000007, 999999937, 3001);
#if defined(UFUNC_BACKEND_CUDA)
  check_integers<std::int64_t, ufunc::target::device>(g(), INT64_MIN, INT64_MAX, 1 << 16);
  check_integers<std::int32_t, ufunc::target::device>(g(), -5, 123457, 1 << 16);
#endif
  // Counts of 10 values over 10^6 draws: chi-square with 9 degrees of freedom
  // below 42 (p ~ 5e-6 for a fair generator).
  const ufunc::index_t n = 1000000;
  const auto v = ufunc::random::integers<int, host>(ufunc::shape{n}, g(), 10, 20).to_host();
  std::vector<long> count(10, 0);
  for (int x : v) ++count[static_cast<std::size_t>(x - 10)];
  double chi2 = 0;
  for (long c : count) chi2 += (c - n / 10.0) * (c - n / 10.0) / (n / 10.0);
  CHECK(chi2 < 42);
  auto draw = [](int low, int high) { return ufunc::random::integers<int, host>(ufunc::shape{3}, 1, low, high); };
  CHECK_THROWS_AS((void)draw(5, 5), ufunc::value_error);
  CHECK_THROWS_AS((void)draw(6, -2), ufunc::value_error);
}

TEST_CASE("random: fill_* at an offset is a slice of one call; sharded arrays hold the draws of one call") {
  const std::uint64_t seed = test::fresh_seed();
  const ufunc::index_t n = 6 * 1001;
  const auto whole = ufunc::random::normal<float, host>(ufunc::shape{n}, seed, 1.f, 2.f).to_host();
  const auto whole_i = ufunc::random::integers<std::int16_t, host>(ufunc::shape{n}, seed, -300, 301).to_host();
  const auto whole_d = ufunc::random::uniform<double, host>(ufunc::shape{n}, seed).to_host();
  // Chunks of a long stream into one buffer.
  auto buf = ufunc::empty<float, host>(ufunc::shape{1001, 2});
  auto buf_i = ufunc::empty<std::int16_t, host>(ufunc::shape{2002});
  auto buf_d = ufunc::empty<double, host>(ufunc::shape{2002});
  int bad = 0;
  for (std::uint64_t first = 0; first < std::uint64_t(n); first += 2002) {
    ufunc::random::fill_normal(buf.view(), seed, first, 1.f, 2.f);
    ufunc::random::fill_integers(buf_i.view(), seed, first, std::int16_t(-300), std::int16_t(301));
    ufunc::random::fill_uniform(buf_d.view(), seed, first);
    const auto b = buf.to_host();
    const auto bi = buf_i.to_host();
    const auto bd = buf_d.to_host();
    for (std::size_t k = 0; k < b.size(); ++k) {
      bad += b[k] != whole[first + k];
      bad += bi[k] != whole_i[first + k];
      bad += bd[k] != whole_d[first + k];
    }
  }
  CHECK(bad == 0);
  auto wide = ufunc::empty<float, host>(ufunc::shape{4, 6});
  CHECK_THROWS_AS(ufunc::random::fill_uniform(wide.view().transposed(), seed), ufunc::shape_error);
  CHECK_THROWS_AS(ufunc::random::fill_normal(wide.view(), seed, 0, 0.f, -1.f), ufunc::value_error);
  // Sharded: 1 to 4 host shards (one with no rows when 4 > rows / 1001 ... here 6 rows).
  for (int shards = 1; shards <= 4; ++shards) {
    CAPTURE(shards);
    std::vector<int> ids(static_cast<std::size_t>(shards));
    for (int k = 0; k < shards; ++k) ids[static_cast<std::size_t>(k)] = k;
    const ufunc::device_set set(ids);
    const auto s = ufunc::random::normal<float, host>(ufunc::shape{6, 1001}, seed, set, 1.f, 2.f).to_host();
    const auto si = ufunc::random::integers<std::int16_t, host>(ufunc::shape{6, 1001}, seed, set, std::int16_t(-300),
                                                                 std::int16_t(301)).to_host();
    CHECK(s == whole);
    CHECK(si == whole_i);
    // fill_* of a sharded array: the whole array's element k gets draw first + k.
    auto part = ufunc::empty<float, host>(ufunc::shape{2, 1001}, set);
    ufunc::random::fill_normal(part, seed, 3003, 1.f, 2.f);
    const auto ph = part.to_host();
    CHECK(std::equal(ph.begin(), ph.end(), whole.begin() + 3003));
  }
  const auto few = ufunc::random::uniform<float, host>(ufunc::shape{2, 3}, seed, ufunc::device_set{0, 1, 2}).to_host();
  CHECK(few == ufunc::random::uniform<float, host>(ufunc::shape{2, 3}, seed).to_host());
#if defined(UFUNC_BACKEND_CUDA)
  const auto d = ufunc::random::uniform<float>(ufunc::shape{6, 1001}, seed, ufunc::device_set()).to_host();
  CHECK(d == ufunc::random::uniform<float, host>(ufunc::shape{6, 1001}, seed).to_host());
#endif
}
