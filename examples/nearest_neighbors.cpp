// nearest_neighbors: for each query point the index of the nearest reference
// point, argmin_j |x_i - y_j|^2, over all pairs without the N x M matrix.
//
// The squared distance is a ufunc over points (`ufunc::vec<3>`: rows of an
// (..., 3) array arrive as cuda::std::array<float, 3>); `f.lazy(...)` makes it a
// lazy node over X (N, 1, 3) and Y (1, M, 3), and `ufunc::argmin` over axis 1
// reduces it in one pass (on the GPU the tiled pairwise kernel). Ties go to the
// lowest j, as NumPy's argmin. Checked on sampled queries against brute force;
// optional argument: N = M (default 2^20 on the GPU, 2^12 on the host backend).
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
    std::puts("nearest_neighbors: no CUDA device, skipped");
    return 77;
  }
  const ufunc::index_t n = argc > 1 ? std::atoll(argv[1]) : (ufunc::cuda_backend ? ufunc::index_t(1) << 20 : 4096);
  const ufunc::index_t m = n;
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> coord(0.0f, 1.0f);
  std::vector<float> hx(static_cast<std::size_t>(3 * n)), hy(static_cast<std::size_t>(3 * m));
  for (auto& v : hx) v = coord(rng);
  for (auto& v : hy) v = coord(rng);
  const auto X = ufunc::asarray(hx, ufunc::shape{n, 1, 3});
  const auto Y = ufunc::asarray(hy, ufunc::shape{1, m, 3});

  auto dist2 = ufunc::vectorize(
      [] UFUNC_HD (const P3& a, const P3& b) {
        const float dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
        return dx * dx + dy * dy + dz * dz;
      },
      "dist2");
  ufunc::array<ufunc::index_t> nn(ufunc::shape{n});
  ufunc::argmin(dist2.lazy(ufunc::vec<3>(X), ufunc::vec<3>(Y)), ufunc::axis(1), ufunc::out(nn));  // warm-up
  ufunc::synchronize();
  const auto t0 = std::chrono::steady_clock::now();
  ufunc::argmin(dist2.lazy(ufunc::vec<3>(X), ufunc::vec<3>(Y)), ufunc::axis(1), ufunc::out(nn));
  ufunc::synchronize();
  const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const auto got = nn.to_host();

  // Brute force on sampled queries in double precision. The device may round
  // the float distances differently (fused multiply-adds), so a found point
  // counts as right when its distance equals the nearest one to float precision.
  std::size_t bad = 0, checked = 0;
  const ufunc::index_t step = n > 64 ? n / 64 : 1;
  auto d2 = [&](ufunc::index_t i, ufunc::index_t j) {
    double s = 0;
    for (int k = 0; k < 3; ++k) {
      const double d = double(hx[std::size_t(3 * i + k)]) - double(hy[std::size_t(3 * j + k)]);
      s += d * d;
    }
    return s;
  };
  for (ufunc::index_t i = 0; i < n; i += step, ++checked) {
    double bd = INFINITY;
    for (ufunc::index_t j = 0; j < m; ++j) bd = std::fmin(bd, d2(i, j));
    const auto j = got[std::size_t(i)];
    if (j < 0 || j >= m || d2(i, j) > bd * (1 + 1e-6) + 1e-12) ++bad;
  }
  const double pairs = double(n) * double(m);
  std::printf("nearest_neighbors: %lld queries x %lld points in %.3f s (%.1f G pairs/s); a dense distance matrix would need %.1f GB\n",
              static_cast<long long>(n), static_cast<long long>(m), sec, pairs / sec * 1e-9, pairs * 4 / 1e9);
  std::printf("nearest_neighbors: %zu of %zu sampled queries agree with brute force (%s)\n", checked - bad, checked,
              bad ? "WRONG" : "ok");
  return bad ? 1 : 0;
}
