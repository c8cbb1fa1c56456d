// pairwise: reductions over all pairs of two point sets without the N x M
// matrix (the workload KeOps is built for), with points as rows: ufunc::vec<3>.
//
// A Gaussian kernel sum a_i = sum_j exp(-|x_i - y_j|^2 / 2 sigma^2) b_j and a
// nearest-neighbour search argmin_j |x_i - y_j|^2 over X (N, 3) and Y (M, 3).
// `ufunc::vec<3>(x)` hands each row to the function as cuda::std::array<float, 3>;
// X viewed as (N, 1, 3) and Y as (1, M, 3) broadcast to N x M pairs, and the
// reduction over axis 1 consumes them one pass at a time: memory stays O(N + M).
// Both are checked against double-precision host loops.
#include <ufunc/ufunc.hpp>

#include <cuda/std/array>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

using P3 = cuda::std::array<float, 3>;

UFUNC_HD float squared_distance(const P3& a, const P3& b) {
  const float dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
  return dx * dx + dy * dy + dz * dz;
}

int main() {
  if (ufunc::cuda_backend && !ufunc::device_available()) {
    std::puts("pairwise: no CUDA device, skipped");
    return 77;
  }
  const ufunc::index_t n = 2000, m = 3000;
  const float sigma = 0.5f;
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> coord(-1.0f, 1.0f), weight(0.0f, 1.0f);
  std::vector<float> hx(static_cast<std::size_t>(3 * n)), hy(static_cast<std::size_t>(3 * m)), hb(static_cast<std::size_t>(m));
  for (auto& v : hx) v = coord(rng);
  for (auto& v : hy) v = coord(rng);
  for (auto& v : hb) v = weight(rng);

  const auto X = ufunc::asarray(hx, ufunc::shape{n, 1, 3});  // rows of 3 coordinates
  const auto Y = ufunc::asarray(hy, ufunc::shape{1, m, 3});
  const auto B = ufunc::asarray(hb, ufunc::shape{1, m});

  const float scale = -0.5f / (sigma * sigma);
  auto kernel_sum = ufunc::map_reduce(
      [scale] UFUNC_HD (const P3& x, const P3& y, float b) { return expf(scale * squared_distance(x, y)) * b; },
      ufunc::plus{});
  const auto a = kernel_sum(ufunc::vec<3>(X), ufunc::vec<3>(Y), B, ufunc::axis(1)).to_host();  // (N,)

  auto dist2 = ufunc::vectorize([] UFUNC_HD (const P3& x, const P3& y) { return squared_distance(x, y); }, "dist2");
  const auto nearest = ufunc::argmin(dist2.lazy(ufunc::vec<3>(X), ufunc::vec<3>(Y)), ufunc::axis(1)).to_host();

  std::size_t bad = 0;
  double worst = 0;
  for (ufunc::index_t i = 0; i < n; ++i) {
    double ref = 0, mag = 0, best = 1e300;
    for (ufunc::index_t j = 0; j < m; ++j) {
      double d2 = 0;
      for (int k = 0; k < 3; ++k) {
        const double d = double(hx[std::size_t(3 * i + k)]) - double(hy[std::size_t(3 * j + k)]);
        d2 += d * d;
      }
      const double t = std::exp(-0.5 * d2 / (double(sigma) * sigma)) * hb[std::size_t(j)];
      ref += t;
      mag += std::fabs(t);
      best = std::fmin(best, d2);
    }
    const double err = std::fabs(a[std::size_t(i)] - ref) / mag;
    worst = std::fmax(worst, err);
    // the index found must be a nearest point (up to float rounding of distances)
    const auto j = nearest[std::size_t(i)];
    double dj = 0;
    for (int k = 0; k < 3; ++k) {
      const double d = double(hx[std::size_t(3 * i + k)]) - double(hy[std::size_t(3 * j + k)]);
      dj += d * d;
    }
    if (err > 1e-5 || j < 0 || j >= m || dj > best * (1 + 1e-5) + 1e-7) ++bad;
  }
  std::printf("pairwise: %lld x %lld pairs, kernel sum worst relative error %.2e, nearest neighbours %s\n",
              static_cast<long long>(n), static_cast<long long>(m), worst, bad ? "WRONG" : "ok");
  return bad ? 1 : 0;
}
