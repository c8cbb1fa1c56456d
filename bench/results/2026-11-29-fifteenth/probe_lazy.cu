// Probe (session 15): sum(lazy_normal<float>(2^30)) against curandGenerateNormal, and
// evaluate(lazy_normal 2^28) into an array against fill_normal, for the row kernel's
// U / blocks-per-SM choices for computed sources (-DUFUNC_PROBE_U, -DUFUNC_PROBE_BPS).
#include <ufunc/ufunc.hpp>
#include <ufunc/detail/cuda/kernels/reduce_rows.cuh>
#include <ufunc/detail/cuda/kernels/elementwise_flat.cuh>
#include "bench_util.hpp"
#include <curand.h>
#include <cmath>
#include <cstdio>
using namespace bench;
int main() {
  const auto dev = bench_device("probe_lazy", 0);
  if (!dev) return 77;
  const std::uint64_t seed = 20261129;
  const ufunc::index_t big = ufunc::index_t(1) << 30, n = ufunc::index_t(1) << 28;
  curandGenerator_t gen;
  curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_PHILOX4_32_10);
  curandSetPseudoRandomGeneratorSeed(gen, seed);
  auto buf = ufunc::empty<float>(ufunc::shape{big});
  auto x = ufunc::empty<float>(ufunc::shape{n});
  // check: the lazy sum of 2^28 against fill_normal + sum of the array
  ufunc::random::fill_normal(x.view(), seed);
  const double a = ufunc::sum(x), l = ufunc::sum(ufunc::random::lazy_normal<float>(ufunc::shape{n}, seed));
  double abs_sum = 0; for (float v : x.to_host()) abs_sum += std::fabs(v);
  std::printf("check: lazy %.9g array %.9g diff/abs %.3g %s\n", l, a, std::fabs(l - a) / abs_sum,
              std::fabs(l - a) <= 2 * 60 * std::ldexp(1.0, -24) * abs_sum ? "ok" : "FAILED");
  double sink = 0;
  for (int round = 0; round < 3; ++round) {
    const auto t = time_interleaved_ms(
        {[&] { sink += ufunc::sum(ufunc::random::lazy_normal<float>(ufunc::shape{big}, seed)); },
         [&] { curandGenerateNormal(gen, buf.data(), std::size_t(big), 0.f, 1.f); },
         [&] { ufunc::evaluate(ufunc::random::lazy_normal<float>(ufunc::shape{n}, seed), ufunc::out(x)); },
         [&] { ufunc::random::fill_normal(x.view(), seed); },
         [&] { sink += ufunc::sum(ufunc::random::lazy_uniform<float>(ufunc::shape{big}, seed)); },
         [&] { curandGenerateUniform(gen, buf.data(), std::size_t(big)); }},
        10, 1);
    std::printf("RU=%d W=%d EU=%d lazy_sum %.3f curand %.3f ratio %.3f | eval %.3f fill %.3f ratio %.3f | usum %.3f curandU %.3f ratio %.3f\n",
                UFUNC_PROBE_RU, UFUNC_PROBE_W, 4, t[0], t[1], t[1] / t[0], t[2], t[3], t[3] / t[2], t[4], t[5], t[5] / t[4]);
  }
  if (sink == 1.5) std::puts("");
  return 0;
}
