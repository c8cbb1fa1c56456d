// sum_reduction: NumPy-vs-GPU sum in C++, from 2^12 to 2^27 float32 values.
//
// For each size: a single-threaded host loop, ufunc::sum on the host target
// (all cores), ufunc::sum on the build's device including the host-to-device
// transfer of the data, and ufunc::sum on data already resident there. Every
// result is checked against a double-precision sum (tree-order bound for ufunc,
// serial bound for the loop). The table shows where the device pays off: small
// sums are dominated by fixed costs (a launch, a copy of the result back, a
// synchronisation), large ones by memory bandwidth. In a host-backend build
// (no GPU; CI) the table stops at 2^24 to keep the run short. Times are medians of
// repeated calls after a warm-up; each call returns a host value, so it is
// complete when the clock stops. Speedups are printed, not asserted.
#include <ufunc/ufunc.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <vector>

namespace {

double median_ms(const std::function<float()>& fn, int reps, float& last) {
  last = fn();  // warm-up
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    last = fn();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main() {
  if (ufunc::cuda_backend && !ufunc::device_available()) {
    std::puts("sum_reduction: no CUDA device, skipped");
    return 77;
  }
  const int emax = ufunc::cuda_backend ? 27 : 24;
  const std::size_t nmax = std::size_t(1) << emax;
  std::vector<float> h(nmax);
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  for (auto& v : h) v = d(rng);

  // On the host backend the default target is the host: the GPU columns would
  // time the host target again, so they are left out.
  const bool gpu = ufunc::cuda_backend;
  if (gpu)
    std::printf("default target: CUDA GPU\n%10s %12s %12s %16s %16s\n", "N", "loop ms", "host ms", "GPU+copy ms",
                "GPU ms");
  else
    std::printf("host backend (no GPU in this build): serial loop against the host target on all cores\n"
                "%10s %12s %12s\n", "N", "loop ms", "host ms");
  std::size_t first_win_copy = 0, first_win_resident = 0;
  bool ok = true;
  const double u = std::ldexp(1.0, -24);
  for (int e = 12; e <= emax; ++e) {
    const std::size_t n = std::size_t(1) << e;
    const std::vector<float> x(h.begin(), h.begin() + static_cast<std::ptrdiff_t>(n));
    double ref = 0, abs_ref = 0;
    for (float v : x) ref += v, abs_ref += std::fabs(v);
    const int reps = e <= 20 ? 11 : (e <= 24 ? 5 : 3);

    float r_loop = 0, r_host = 0, r_copy = 0, r_dev = 0;
    const double t_loop = median_ms([&] {
      float s = 0;
      for (float v : x) s += v;
      return s;
    }, reps, r_loop);
    const auto xh = ufunc::asarray<ufunc::target::host>(x);
    const double t_host = median_ms([&] { return ufunc::sum(xh); }, reps, r_host);
    double t_copy = 0, t_dev = 0;
    r_copy = r_dev = r_host;
    if (gpu) {
      t_copy = median_ms([&] { return ufunc::sum(ufunc::to_device(x)); }, reps, r_copy);
      const auto xd = ufunc::to_device(x);
      t_dev = median_ms([&] { return ufunc::sum(xd); }, reps, r_dev);
      std::printf("%10zu %12.4f %12.4f %16.4f %16.4f\n", n, t_loop, t_host, t_copy, t_dev);
    } else {
      std::printf("%10zu %12.4f %12.4f\n", n, t_loop, t_host);
    }

    const double tree = (e + 2) * u * abs_ref;  // tree-order bound; the loop is serial: n*u*sum|x|
    for (float r : {r_host, r_copy, r_dev})
      if (!(std::fabs(r - ref) <= tree)) {
        std::printf("  WRONG: ufunc sum %.9g vs reference %.9g (bound %.3g)\n", r, ref, tree);
        ok = false;
      }
    if (!(std::fabs(r_loop - ref) <= double(n) * u * abs_ref)) ok = false;
    if (gpu && !first_win_copy && t_copy < t_loop) first_win_copy = n;
    if (gpu && !first_win_resident && t_dev < t_loop) first_win_resident = n;
  }
  auto say = [emax](const char* what, std::size_t n) {
    if (n)
      std::printf("smallest N where the GPU %s beats the serial loop: 2^%d\n", what,
                  static_cast<int>(std::log2(double(n))));
    else
      std::printf("the GPU %s never beat the serial loop up to 2^%d\n", what, emax);
  };
  if (gpu) {
    say("(including the copy of the data)", first_win_copy);
    say("(data resident)", first_win_resident);
  }
  std::printf("sum_reduction: %s\n", ok ? "all sums match the double reference" : "MISMATCH");
  return ok ? 0 : 1;
}
