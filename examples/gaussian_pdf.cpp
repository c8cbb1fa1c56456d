// gaussian_pdf: the basic ufunc workflow and what it buys over a plain loop.
//
// One scalar UFUNC_HD lambda, lifted by ufunc::vectorize, evaluates the normal
// density over a million values in one call (the scalars `mean` and `sigma`
// broadcast against the array). The float32 result is checked against a
// double-precision host reference with an error bound derived below, and the
// call is timed against the same formula in a single-threaded host loop. Timing
// an asynchronous backend honestly needs two things: a warm-up call first (the
// first call pays one-time setup: context, memory pool, kernel loading) and
// ufunc::synchronize() before the clock stops (a CUDA call returns as soon as its
// kernel is queued). The speedup is printed, not asserted.
#include <ufunc/ufunc.hpp>

#include "timing_note.hpp"

#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

constexpr float SQRT_2PI = 2.5066282746310002f;

int main() {
  if (ufunc::cuda_backend && !ufunc::device_available()) {
    std::puts("gaussian_pdf: no CUDA device, skipped");
    return 77;
  }

  // ufunc::math::exp rather than expf: on the host it vectorises (glibc's expf is
  // a call per element that no loop vectorises), within 1 ulp; on the GPU it is
  // CUDA's expf.
  auto gaussian_pdf = ufunc::vectorize(
      [] UFUNC_HD (float x, float mean, float sigma) {
        float z = (x - mean) / sigma;
        return ufunc::math::exp(-0.5f * z * z) / (sigma * SQRT_2PI);
      },
      "gaussian_pdf");

  const std::size_t n = 1 << 20;
  const float mean = 0.0f, sigma = 1.0f;
  const float xmax = 4.0f;  // x in [-4, 4]: the density spans 3e-4 .. 0.4
  std::vector<float> hx(n);
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> dist(-xmax, xmax);
  for (auto& v : hx) v = dist(rng);

  using clock = std::chrono::steady_clock;
  const int reps = 10;

  // ufunc: data resident in the target's memory, result into a preallocated buffer.
  auto x = ufunc::to_device(hx);
  auto y = ufunc::empty_like(x);
  gaussian_pdf(x, mean, sigma, ufunc::out(y));  // warm-up
  ufunc::synchronize();
  auto t0 = clock::now();
  for (int r = 0; r < reps; ++r) gaussian_pdf(x, mean, sigma, ufunc::out(y));
  ufunc::synchronize();
  const double ufunc_ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count() / reps;
  const auto hy = y.to_host();

  // The same formula in a plain single-threaded loop.
  std::vector<float> hloop(n);
  t0 = clock::now();
  for (int r = 0; r < reps; ++r)
    for (std::size_t i = 0; i < n; ++i) {
      float z = (hx[i] - mean) / sigma;
      hloop[i] = std::exp(-0.5f * z * z) / (sigma * SQRT_2PI);
    }
  const double loop_ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count() / reps;

  // Error bound, in units of FLT_EPSILON, for u = z*z/2: z = (x-mean)/sigma rounds
  // twice (1 eps relative), z*z doubles that and rounds once (2.5 eps), so the
  // argument of exp is off by up to 2.5*u eps absolute, which exp turns into 2.5*u
  // eps relative; exp itself is within 2 ulp (2 eps: ufunc::math::exp 1 on the host,
  // CUDA's expf 2 on the device; the loop's std::exp 1); SQRT_2PI as a float, the
  // product sigma*SQRT_2PI and the final division add 0.5 eps each. Total
  // (3.5 + 2.5u) eps; we allow (4 + 3u) eps, i.e. 3.3e-6 at |x| = 4.
  std::size_t bad = 0;
  double worst = 0.0, worst_bound = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const double z = (static_cast<double>(hx[i]) - mean) / sigma;
    const double u = 0.5 * z * z;
    const double ref = std::exp(-u) / (sigma * std::sqrt(2.0 * std::acos(-1.0)));
    const double bound = (4.0 + 3.0 * u) * FLT_EPSILON;
    const double err = std::fabs(hy[i] - ref) / ref, err_loop = std::fabs(hloop[i] - ref) / ref;
    worst = std::fmax(worst, err);
    worst_bound = std::fmax(worst_bound, bound);
    if (!(err <= bound) || !(err_loop <= bound)) {
      if (bad++ < 5)
        std::printf("MISMATCH at %zu: x = %g: ufunc %.9g, loop %.9g, reference %.9g\n", i, hx[i], hy[i], hloop[i], ref);
    }
  }

  std::printf("gaussian_pdf of %zu float32 values on the %s target\n", n, ufunc::target::device::name);
  std::printf("  max relative error %.3g (bound (4 + 3 z^2/2) FLT_EPSILON, at most %.3g)\n", worst, worst_bound);
  std::printf("  ufunc:                     %8.3f ms per call\n", ufunc_ms);
  std::printf("  single-threaded host loop: %8.3f ms per call\n", loop_ms);
  std::printf("  speedup: %.1fx\n", loop_ms / ufunc_ms);
  print_timing_note();
  if (bad != 0) {
    std::printf("gaussian_pdf: FAILED (%zu mismatches)\n", bad);
    return 1;
  }
  std::puts("gaussian_pdf: ok");
  return 0;
}
