// kernel_density: a Gaussian kernel density estimate over all pairs of two
// point sets, a_i = sum_j exp(-|x_i - y_j|^2 / 2 sigma^2) b_j, without the N x M
// matrix (KeOps' workload: the seeds' memory-overflow lesson ends with it).
//
// Points are rows: `ufunc::vec<3>(x)` hands each row of an (..., 3) array to the
// function as cuda::std::array<float, 3>. X seen as (N, 1, 3) and Y as (1, M, 3)
// broadcast to N x M pairs and `map_reduce(..., plus)` over axis 1 consumes them
// in one pass: the GPU runs the tiled pairwise kernel (y_j staged in shared
// memory, x_i and the sums in registers), memory stays O(N + M). Checked on
// sampled rows against a double-precision loop; the time and the dense
// method's memory need are printed. Optional argument: N = M (default 2^20 on
// the GPU, 2^12 on the host backend).
#include <ufunc/ufunc.hpp>

#include <cuda/std/array>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

using P3 = cuda::std::array<float, 3>;

int main(int argc, char** argv) {
  if (ufunc::cuda_backend && !ufunc::device_available()) {
    std::puts("kernel_density: no CUDA device, skipped");
    return 77;
  }
  const ufunc::index_t n = argc > 1 ? std::atoll(argv[1]) : (ufunc::cuda_backend ? ufunc::index_t(1) << 20 : 4096);
  const ufunc::index_t m = n;
  const float sigma = 0.25f;
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> coord(-1.0f, 1.0f), weight(0.0f, 1.0f);
  std::vector<float> hx(static_cast<std::size_t>(3 * n)), hy(static_cast<std::size_t>(3 * m)), hb(static_cast<std::size_t>(m));
  for (auto& v : hx) v = coord(rng);
  for (auto& v : hy) v = coord(rng);
  for (auto& v : hb) v = weight(rng);
  const auto X = ufunc::asarray(hx, ufunc::shape{n, 1, 3});  // queries, rows of 3 coordinates
  const auto Y = ufunc::asarray(hy, ufunc::shape{1, m, 3});  // sources
  const auto B = ufunc::asarray(hb, ufunc::shape{1, m});     // source weights

  const float scale = -0.5f / (sigma * sigma);
  auto density = ufunc::map_reduce(
      [scale] UFUNC_HD (const P3& x, const P3& y, float b) {
        const float dx = x[0] - y[0], dy = x[1] - y[1], dz = x[2] - y[2];
        return expf(scale * (dx * dx + dy * dy + dz * dz)) * b;
      },
      ufunc::plus{});
  ufunc::array<float> a(ufunc::shape{n});
  density(ufunc::vec<3>(X), ufunc::vec<3>(Y), B, ufunc::axis(1), ufunc::out(a));  // warm-up
  ufunc::synchronize();
  const auto t0 = std::chrono::steady_clock::now();
  density(ufunc::vec<3>(X), ufunc::vec<3>(Y), B, ufunc::axis(1), ufunc::out(a));
  ufunc::synchronize();
  const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const auto got = a.to_host();

  // Sampled rows against double precision; the error is relative to sum |term|.
  double worst = 0;
  const ufunc::index_t step = n > 64 ? n / 64 : 1;
  for (ufunc::index_t i = 0; i < n; i += step) {
    double ref = 0, mag = 0;
    for (ufunc::index_t j = 0; j < m; ++j) {
      double d2 = 0;
      for (int k = 0; k < 3; ++k) {
        const double d = double(hx[std::size_t(3 * i + k)]) - double(hy[std::size_t(3 * j + k)]);
        d2 += d * d;
      }
      const double t = std::exp(-0.5 * d2 / (double(sigma) * sigma)) * hb[std::size_t(j)];
      ref += t;
      mag += t;
    }
    worst = std::fmax(worst, std::fabs(got[std::size_t(i)] - ref) / mag);
  }
  const double pairs = double(n) * double(m);
  std::printf("kernel_density: %lld x %lld pairs in %.3f s (%.1f G pairs/s); the dense N x M float matrix would need %.1f GB\n",
              static_cast<long long>(n), static_cast<long long>(m), sec, pairs / sec * 1e-9, pairs * 4 / 1e9);
  std::printf("kernel_density: worst relative error on %lld sampled rows: %.2e (%s)\n",
              static_cast<long long>((n + step - 1) / step), worst, worst < 1e-5 ? "ok" : "WRONG");
  return worst < 1e-5 ? 0 : 1;
}
