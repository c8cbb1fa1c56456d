// hypot: why the formula inside a ufunc matters as much as where it runs.
//
// The textbook sqrt(a*a + b*b) overflows to inf once a*a exceeds FLT_MAX (about
// 3.4e38), i.e. for |a| above ~1.8e19, even when the answer itself is a perfectly
// ordinary float; it also underflows to 0 for tiny inputs. Scaling by the larger
// magnitude first keeps every intermediate in range:
//     x = |a|, y = |b|; t = min(x, y); x = max(x, y); t = t / x; x * sqrt(1 + t*t)
// Both are lifted into ufuncs with the same one-line `ufunc::vectorize`; the
// safe one is checked against std::hypot to a few ulp, the naive one is only
// printed for contrast.
#include <ufunc/ufunc.hpp>

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

int main() {
  if (ufunc::cuda_backend && !ufunc::device_available()) {
    std::puts("hypot: no CUDA device, skipped");
    return 77;
  }

  auto naive_hypot = ufunc::vectorize([] UFUNC_HD (float a, float b) { return sqrtf(a * a + b * b); }, "naive_hypot");
  auto safe_hypot = ufunc::vectorize(
      [] UFUNC_HD (float a, float b) {
        float x = fabsf(a), y = fabsf(b);
        float t = fminf(x, y);
        x = fmaxf(x, y);
        if (x == 0.0f) return 0.0f;  // hypot(0, 0): t / x would be 0/0 = NaN
        t = t / x;
        return x * sqrtf(1.0f + t * t);
      },
      "safe_hypot");

  // Hand-picked pairs first (huge, tiny, zero, mixed signs), then random pairs
  // whose magnitudes span 2^-100 .. 2^126 (so every true result fits in a float).
  std::vector<float> ha = {3.0f, 2e38f, -3e38f, 1e20f, 1.5e-30f, 0.0f, 0.0f, -7.0f};
  std::vector<float> hb = {4.0f, 1.5e38f, 1e38f, -1e20f, 2e-30f, 0.0f, -5.0f, 0.0f};
  const std::size_t n_fixed = ha.size(), n = 1 << 20;
  std::mt19937 rng(2024);
  std::uniform_real_distribution<float> mant(1.0f, 2.0f);
  std::uniform_int_distribution<int> expo(-100, 126), sign(0, 1);
  auto rand_float = [&] { return (sign(rng) ? -1.0f : 1.0f) * std::ldexp(mant(rng), expo(rng)); };
  while (ha.size() < n) {
    ha.push_back(rand_float());
    hb.push_back(rand_float());
  }

  auto a = ufunc::to_device(ha), b = ufunc::to_device(hb);
  const auto naive = naive_hypot(a, b).to_host();
  const auto safe = safe_hypot(a, b).to_host();

  std::printf("%12s %12s %14s %14s %14s\n", "a", "b", "naive", "safe", "std::hypot");
  for (std::size_t i = 0; i < n_fixed; ++i)
    std::printf("%12.5g %12.5g %14.7g %14.7g %14.7g\n", ha[i], hb[i], naive[i], safe[i], std::hypot(ha[i], hb[i]));

  // Relative tolerance: the safe formula rounds five times (|.|, min and max are
  // exact), each adding at most FLT_EPSILON/2 of relative error, and t's errors
  // are damped by 1 + t*t >= 1: about 2 FLT_EPSILON in all. 4 FLT_EPSILON
  // (4 to 8 ulp) leaves a margin.
  const double rtol = 4.0 * FLT_EPSILON;
  std::size_t bad = 0, naive_broken = 0;
  double worst = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const double ref = std::hypot(static_cast<double>(ha[i]), static_cast<double>(hb[i]));
    const double err = ref == 0.0 ? std::fabs(safe[i]) : std::fabs(safe[i] - ref) / ref;
    worst = std::fmax(worst, err);
    if (!(err <= rtol)) {  // also catches NaN
      if (bad++ < 5) std::printf("MISMATCH at %zu: hypot(%g, %g) = %.9g, expected %.9g\n", i, ha[i], hb[i], safe[i], ref);
    }
    const double naive_err = ref == 0.0 ? std::fabs(naive[i]) : std::fabs(naive[i] - ref) / ref;
    if (!(naive_err <= rtol)) ++naive_broken;
  }
  std::printf("naive formula: %zu of %zu results wrong (inf from overflow or 0 from underflow)\n", naive_broken, n);
  std::printf("safe formula:  max relative error %.3g (tolerance %.3g), %zu mismatches\n", worst, rtol, bad);
  if (bad != 0 || naive_broken == 0) {  // the contrast must actually be shown
    std::puts("hypot: FAILED");
    return 1;
  }
  std::puts("hypot: ok");
  return 0;
}
