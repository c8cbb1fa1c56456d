// fused_expressions: a chain of reusable ufuncs, three ways.
//
// A small library of scalar functions (sub, hypot, gaussian_pdf) computes a
// weighted Gaussian of the distance of points (x, y) from per-column centres
// (mx, my), w * gaussian_pdf(hypot(x - mx, y - my), 0, s), over an (m, n) grid:
//   1. eagerly: each call writes a temporary array that the next one reads;
//   2. lazily: the same calls with `.lazy`, and operators, build an expression
//      that ufunc::evaluate runs as one kernel, with no temporaries;
//   3. hand-fused: the whole formula in one lambda (what users had to write).
// The three results must agree, and a fused reduction (the sum of the
// expression, no temporary either) must match the sum of the eager result. The
// times are printed (median of a few runs), not asserted.
#include <ufunc/ufunc.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

namespace {
template <class Fn>
double median_ms(Fn&& fn, int reps = 7) {
  fn();  // warm-up: memory pool, kernel loading
  ufunc::synchronize();
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    ufunc::synchronize();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}
}  // namespace

int main() {
  if (ufunc::cuda_backend && !ufunc::device_available()) {
    std::puts("fused_expressions: no CUDA device, skipped");
    return 77;
  }

  // The reusable pieces.
  auto sub = ufunc::vectorize([] UFUNC_HD (float a, float b) { return a - b; }, "sub");
  auto hypot = ufunc::vectorize([] UFUNC_HD (float a, float b) { return sqrtf(a * a + b * b); }, "hypot");
  auto gaussian_pdf = ufunc::vectorize(
      [] UFUNC_HD (float v, float mu, float s) {
        const float z = (v - mu) / s;
        return expf(-0.5f * z * z) / (s * 2.5066282746f);
      },
      "gaussian_pdf");
  auto mul = ufunc::vectorize([] UFUNC_HD (float a, float b) { return a * b; }, "mul");
  // The same formula written as one lambda.
  auto hand_fused = ufunc::vectorize(
      [] UFUNC_HD (float x, float mx, float y, float my, float w, float s) {
        const float dx = x - mx, dy = y - my;
        const float z = sqrtf(dx * dx + dy * dy) / s;
        return w * (expf(-0.5f * z * z) / (s * 2.5066282746f));
      },
      "hand_fused");

  const ufunc::index_t m = ufunc::cuda_backend ? 4096 : 1024, n = 2048;
  const float s = 1.5f;
  std::mt19937 rng(7);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  auto random = [&](std::size_t k) {
    std::vector<float> v(k);
    for (auto& e : v) e = nd(rng);
    return v;
  };
  const auto x = ufunc::to_device(random(std::size_t(m * n)), {m, n});
  const auto y = ufunc::to_device(random(std::size_t(m * n)), {m, n});
  const auto w = ufunc::to_device(random(std::size_t(m * n)), {m, n});
  const auto mx = ufunc::to_device(random(std::size_t(n)), {1, n});  // broadcast along rows
  const auto my = ufunc::to_device(random(std::size_t(n)), {1, n});

  // 1. Eager: every call writes an array the next one reads (four temporaries).
  ufunc::array<float> r_eager = mul(gaussian_pdf(hypot(sub(x, mx), sub(y, my)), 0.0f, s), w);
  // 2. Lazy: one expression (f.lazy, and an operator for the last step), one
  //    kernel; nothing runs until evaluate. x, y, w, mx, my must outlive it.
  auto e = gaussian_pdf.lazy(hypot.lazy(sub.lazy(x, mx), sub.lazy(y, my)), 0.0f, s) * w;
  ufunc::array<float> r_lazy = ufunc::evaluate(e);
  // 3. Hand-fused.
  ufunc::array<float> r_hand = hand_fused(x, mx, y, my, w, s);

  const auto he = r_eager.to_host(), hl = r_lazy.to_host(), hh = r_hand.to_host();
  double worst = 0;
  for (std::size_t i = 0; i < he.size(); ++i) {
    const double scale = std::fabs(he[i]) + 1e-30;
    worst = std::max({worst, std::fabs(hl[i] - he[i]) / scale, std::fabs(hh[i] - he[i]) / scale});
  }
  // Fusing may contract a * b + c into one rounding: a few float ulps apart at most.
  const bool agree = worst <= 1e-5;

  // A reduction of the expression: one pass, no temporary.
  const float sum_lazy = ufunc::sum(e);
  double sum_ref = 0, mag = 0;
  for (float v : he) sum_ref += v, mag += std::fabs(v);
  const bool sum_ok = std::fabs(sum_lazy - sum_ref) <= 1e-5 * mag;

  auto out = ufunc::empty<float>({m, n});
  const double t_eager =
      median_ms([&] { mul(gaussian_pdf(hypot(sub(x, mx), sub(y, my)), 0.0f, s), w, ufunc::out(out)); });
  const double t_lazy = median_ms([&] { ufunc::evaluate(e, ufunc::out(out)); });
  const double t_hand = median_ms([&] { hand_fused(x, mx, y, my, w, s, ufunc::out(out)); });

  std::printf("w * gaussian_pdf(hypot(x - mx, y - my), 0, s) over (%lld, %lld) float32 (%s backend)\n",
              static_cast<long long>(m), static_cast<long long>(n), ufunc::cuda_backend ? "CUDA" : "host");
  std::printf("  eager, a chain of 5 calls:   %8.3f ms\n", t_eager);
  std::printf("  lazy, one evaluate:          %8.3f ms\n", t_lazy);
  std::printf("  hand-fused, one lambda:      %8.3f ms\n", t_hand);
  std::printf("  largest relative difference between the three: %.2e (%s)\n", worst, agree ? "ok" : "MISMATCH");
  std::printf("  sum(expression) = %.6g, sum of the eager result = %.6g (%s)\n", sum_lazy, sum_ref,
              sum_ok ? "ok" : "MISMATCH");
  return agree && sum_ok ? 0 : 1;
}
