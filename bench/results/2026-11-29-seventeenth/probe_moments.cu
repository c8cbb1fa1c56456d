// Probe (session 17): the moments (sum, sum of squares) of lazy normal draws in one pass
// or two, for issue 41's "10^12 draws in <= 3 s": 2^30 draws timed four ways, then the
// fastest exact-enough way (double accumulators) over 10^12 draws once, with its moments
// checked against N(0, 10).
#include <ufunc/ufunc.hpp>
#include "bench_util.hpp"
#include <cuda/std/complex>
#include <chrono>
#include <cmath>
#include <cstdio>
using namespace bench;
int main() {
  const auto dev = bench_device("probe_moments", 0);
  if (!dev) return 77;
  const std::uint64_t seed = 2026;
  using cd = cuda::std::complex<double>;
  using cf = cuda::std::complex<float>;
  const auto sq_d = ufunc::map_reduce([] UFUNC_HD(float x) { return cd(x, double(x) * double(x)); }, ufunc::plus{});
  const auto sq_f = ufunc::map_reduce([] UFUNC_HD(float x) { return cf(x, x * x); }, ufunc::plus{});
  const ufunc::index_t big = ufunc::index_t(1) << 30;
  const auto z = ufunc::random::lazy_normal<float>(ufunc::shape{big}, seed, 0.f, 10.f);
  // agreement first
  const double s1 = ufunc::reduce<double>(ufunc::plus{})(z), s2 = ufunc::reduce<double>(ufunc::plus{})(z * z);
  const cd c = sq_d(z);
  const cf cfl = sq_f(z);
  std::printf("two double sums %.9e %.9e | complex<double> %.9e %.9e | complex<float> %.9e %.9e\n", s1, s2, c.real(),
              c.imag(), double(cfl.real()), double(cfl.imag()));
  double sink = 0;
  for (int round = 0; round < 2; ++round) {
    const auto t = time_interleaved_ms(
        {[&] { sink += ufunc::reduce<double>(ufunc::plus{})(z); sink += ufunc::reduce<double>(ufunc::plus{})(z * z); },
         [&] { sink += ufunc::sum(z); sink += ufunc::sum(z * z); },
         [&] { sink += sq_d(z).real(); },
         [&] { sink += sq_f(z).real(); },
         [&] { sink += ufunc::sum(z); }},
        10, 1);
    const double g = double(big) * 1e-9;
    std::printf("2^30 draws, G draws/s: two double sums %.1f | two float sums %.1f | complex<double> map_reduce %.1f | "
                "complex<float> %.1f | one float sum %.1f\n",
                g / (t[0] * 1e-3), g / (t[1] * 1e-3), g / (t[2] * 1e-3), g / (t[3] * 1e-3), g / (t[4] * 1e-3));
  }
  const ufunc::index_t n = 1'000'000'000'000;
  const auto w = ufunc::random::lazy_normal<float>(ufunc::shape{n}, seed, 0.f, 10.f);
  const auto t0 = std::chrono::steady_clock::now();
  const cd m = sq_d(w);
  const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double mean = m.real() / double(n), sd = std::sqrt(m.imag() / double(n) - mean * mean);
  const bool ok = std::fabs(mean) < 5 * 10 / std::sqrt(double(n)) && std::fabs(sd - 10) < 5 * 10 / std::sqrt(2.0 * n) + 1e-5;
  std::printf("10^12 draws, one complex<double> map_reduce: %.3f s (%.1f G/s), mean %+.3e stddev %.7f: %s\n", sec,
              double(n) / sec * 1e-9, mean, sd, ok ? "ok" : "FAILED");
  if (sink == 1.5) std::puts("");
  return ok ? 0 : 1;
}
