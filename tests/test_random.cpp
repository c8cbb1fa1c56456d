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
  CHECK(lo > -2.0);
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
