// random_overflow: the moments of 10^12 normal draws, which NumPy cannot hold.
//
// The seed program asks `np.random.normal(loc=0, scale=10, size=int(1E12))`: 4 TB
// of float32, far beyond any GPU or host. Draws of ufunc::random are a function of
// (seed, index), so the 10^12 numbers of that one call need no memory at all: a
// lazy leaf (`lazy_normal`) makes each draw where a reduction reads it. One pass
// gives the sum and the sum of squares, accumulated in double (the map returns
// (x, x^2) as a complex<double>, whose sum adds the two parts), hence the mean
// and the standard deviation, checked against 0 and 10. Then the same draws over
// every GPU of the machine, made chunk by chunk into a sharded buffer
// (`fill_normal(buf, seed, first, ...)`: element k gets draw first + k; each GPU
// fills and reduces its rows), which must give the same moments.
//
//   usage: example_random_overflow [draws]   (default: 10^12 with a GPU, 2^25 on the host backend)
#include <ufunc/ufunc.hpp>

#include <cuda/std/complex>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace {

constexpr std::uint64_t seed = 2026;
constexpr float scale = 10.f;

struct moments {
  double sum = 0, sum_sq = 0, seconds = 0;
};

/// n draws on the build's device (or the host), in one reduction of a lazy leaf:
/// no memory, each draw made once (two reductions, one per sum, would make every
/// draw twice: 149 G draws/s on an H200 against 424 for this one).
moments one_device(std::uint64_t n) {
  const auto x = ufunc::random::lazy_normal<float>(ufunc::shape{static_cast<ufunc::index_t>(n)}, seed, 0.f, scale);
  const auto sum_and_squares =
      ufunc::map_reduce([] UFUNC_HD(float v) { return cuda::std::complex<double>(v, double(v) * double(v)); },
                        ufunc::plus{});
  const auto t0 = std::chrono::steady_clock::now();
  const cuda::std::complex<double> s = sum_and_squares(x);
  moments m;
  m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  m.sum = s.real();
  m.sum_sq = s.imag();
  return m;
}

/// The same n draws over every GPU: a sharded buffer of `rows` x 2^20 per chunk.
moments all_devices(std::uint64_t n, ufunc::index_t rows) {
  constexpr ufunc::index_t cols = 1 << 20;
  const std::uint64_t chunk = static_cast<std::uint64_t>(rows) * cols;
  const ufunc::device_set all;
  auto buf = ufunc::empty<float>(ufunc::shape{rows, cols}, all);
  const auto t0 = std::chrono::steady_clock::now();
  moments m;
  std::uint64_t first = 0;
  for (; first + chunk <= n; first += chunk) {
    ufunc::random::fill_normal(buf, seed, first, 0.f, scale);
    m.sum += ufunc::reduce<double>(ufunc::plus{})(buf);
    m.sum_sq += ufunc::reduce<double>(ufunc::plus{})(ufunc::lazy(buf) * buf);
  }
  if (first < n) {  // the last, shorter chunk: whole rows, then a row's part
    const std::uint64_t left = n - first;
    const auto full_rows = static_cast<ufunc::index_t>(left / cols);
    if (full_rows > 0) {
      auto tail = ufunc::empty<float>(ufunc::shape{full_rows, cols}, all);
      ufunc::random::fill_normal(tail, seed, first, 0.f, scale);
      m.sum += ufunc::reduce<double>(ufunc::plus{})(tail);
      m.sum_sq += ufunc::reduce<double>(ufunc::plus{})(ufunc::lazy(tail) * tail);
      first += static_cast<std::uint64_t>(full_rows) * cols;
    }
    if (first < n) {
      auto part = ufunc::empty<float>(ufunc::shape{static_cast<ufunc::index_t>(n - first)});
      ufunc::random::fill_normal(part.view(), seed, first, 0.f, scale);
      m.sum += ufunc::reduce<double>(ufunc::plus{})(part);
      m.sum_sq += ufunc::reduce<double>(ufunc::plus{})(ufunc::lazy(part) * part);
    }
  }
  m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return m;
}

/// Prints the moments and checks them: the mean within 5 standard errors of 0
/// (10 / sqrt(n)), the standard deviation within 5 of its own (10 / sqrt(2 n)),
/// plus the float draws' own rounding (|x| eps per draw, far below both here).
bool report(const char* what, std::uint64_t n, const moments& m) {
  const double dn = static_cast<double>(n);
  const double mean = m.sum / dn;
  const double sd = std::sqrt(std::max(0.0, m.sum_sq / dn - mean * mean));
  const double mean_tol = 5 * scale / std::sqrt(dn), sd_tol = 5 * scale / std::sqrt(2 * dn) + 1e-6 * scale;
  const bool ok = std::fabs(mean) < mean_tol && std::fabs(sd - scale) < sd_tol;
  std::printf("%-28s %.4g draws: mean %+.3e (|.| < %.1e), stddev %.7f (10 +- %.1e), %.2f s, %.3g draws/s: %s\n", what,
              dn, mean, mean_tol, sd, sd_tol, m.seconds, dn / m.seconds, ok ? "ok" : "FAILED");
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (ufunc::cuda_backend && !ufunc::device_available()) {
    std::puts("random_overflow: no CUDA device, skipped");
    return 77;
  }
  const std::uint64_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10)
                                   : (ufunc::cuda_backend ? 1'000'000'000'000ull : std::uint64_t(1) << 25);
  if (n < 2) {
    std::puts("random_overflow: give at least 2 draws");
    return 2;
  }
  std::printf("np.random.normal(0, 10, size=%.4g) would need %.1f GB; drawn where they are reduced instead\n",
              static_cast<double>(n), static_cast<double>(n) * 4 / 1e9);
  bool ok = report(ufunc::cuda_backend ? "one GPU (lazy leaf):" : "host backend (lazy leaf):", n, one_device(n));
  const int gpus = static_cast<int>(ufunc::devices().size());
  if (ufunc::cuda_backend && gpus > 1) {
    const moments m = all_devices(n, 256 * gpus);
    ok = report("every GPU (sharded):", n, m) && ok;
  }
  std::puts(ok ? "random_overflow: ok" : "random_overflow: FAILED");
  return ok ? 0 : 1;
}
