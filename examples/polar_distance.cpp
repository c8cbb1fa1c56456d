// polar_distance: factoring kernel code into helper functions, and ufuncs with
// more than one output.
//
// A ufunc's scalar function may call any UFUNC_HD function, just as a Numba
// @vectorize kernel may call a @cuda.jit(device=True) function. The helper here,
// polar_to_cartesian, returns two values as a cuda::std::pair (std::pair is not
// usable in device code); the ufunc computes the distance between two points
// given in polar coordinates. The same helper, returned directly from a
// vectorized lambda, makes a ufunc with two outputs, which a call hands back as a
// std::tuple of arrays: `auto [x, y] = to_cartesian(rho, theta);`. Both are
// checked against double-precision host math on random data.
#include <ufunc/ufunc.hpp>

#include <cuda/std/utility>

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

UFUNC_HD cuda::std::pair<float, float> polar_to_cartesian(float rho, float theta) {
  return {rho * cosf(theta), rho * sinf(theta)};
}

int main() {
  if (ufunc::cuda_backend && !ufunc::device_available()) {
    std::puts("polar_distance: no CUDA device, skipped");
    return 77;
  }

  auto polar_distance = ufunc::vectorize(
      [] UFUNC_HD (float rho1, float theta1, float rho2, float theta2) {
        auto [x1, y1] = polar_to_cartesian(rho1, theta1);
        auto [x2, y2] = polar_to_cartesian(rho2, theta2);
        return sqrtf((x1 - x2) * (x1 - x2) + (y1 - y2) * (y1 - y2));
      },
      "polar_distance");
  auto to_cartesian = ufunc::vectorize(
      [] UFUNC_HD (float rho, float theta) { return polar_to_cartesian(rho, theta); }, "to_cartesian");

  const std::size_t n = 1 << 20;
  const double two_pi = 2.0 * std::acos(-1.0);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> radius(0.01f, 10.0f), angle(0.0f, static_cast<float>(two_pi));
  std::vector<float> hr1(n), ht1(n), hr2(n), ht2(n);
  for (std::size_t i = 0; i < n; ++i) {
    hr1[i] = radius(rng);
    ht1[i] = angle(rng);
    hr2[i] = radius(rng);
    ht2[i] = angle(rng);
  }

  auto r1 = ufunc::to_device(hr1), t1 = ufunc::to_device(ht1);
  auto r2 = ufunc::to_device(hr2), t2 = ufunc::to_device(ht2);
  const auto dist = polar_distance(r1, t1, r2, t2).to_host();
  auto [x, y] = to_cartesian(r1, t1);  // one call, two output arrays
  const auto hx = x.to_host(), hy = y.to_host();

  // Tolerances are absolute, scaled by the radii, because the distance between
  // two nearby points is a difference of nearly equal coordinates (cancellation):
  // cosf/sinf are within 2 ulp, so each float coordinate is off by up to about
  // 2.5 eps * rho, each difference by 2.5 eps (rho1 + rho2) plus its rounding, and
  // the norm adds about 1.5 eps * distance: under 5 eps (rho1 + rho2); allow 8.
  std::size_t bad = 0;
  double worst_d = 0.0, worst_xy = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const double a = hr1[i], b = hr2[i];
    const double ref = std::sqrt(std::fmax(0.0, a * a + b * b - 2.0 * a * b * std::cos(double(ht1[i]) - double(ht2[i]))));
    const double err_d = std::fabs(dist[i] - ref) / ((a + b) * FLT_EPSILON);
    const double err_xy = std::fmax(std::fabs(hx[i] - a * std::cos(double(ht1[i]))),
                                    std::fabs(hy[i] - a * std::sin(double(ht1[i])))) /
                          (a * FLT_EPSILON);
    worst_d = std::fmax(worst_d, err_d);
    worst_xy = std::fmax(worst_xy, err_xy);
    if (!(err_d <= 8.0) || !(err_xy <= 4.0)) {
      if (bad++ < 5)
        std::printf("MISMATCH at %zu: (%g, %g) to (%g, %g): distance %.9g, expected %.9g; x, y = %.9g, %.9g\n", i,
                    hr1[i], ht1[i], hr2[i], ht2[i], dist[i], ref, hx[i], hy[i]);
    }
  }

  std::printf("polar_distance over %zu point pairs, e.g. (rho, theta) = (%.3f, %.3f), (%.3f, %.3f) -> %.5f\n", n, hr1[0],
              ht1[0], hr2[0], ht2[0], dist[0]);
  std::printf("  distance error: at most %.2f eps * (rho1 + rho2) (allowed 8)\n", worst_d);
  std::printf("  to_cartesian (two outputs): first point (%.5f, %.5f), error at most %.2f eps * rho (allowed 4)\n",
              hx[0], hy[0], worst_xy);
  if (bad != 0) {
    std::printf("polar_distance: FAILED (%zu mismatches)\n", bad);
    return 1;
  }
  std::puts("polar_distance: ok");
  return 0;
}
