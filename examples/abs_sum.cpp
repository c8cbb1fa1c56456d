// abs_sum: the seed's "complex operation", the sum of |x_i|, as a fused
// map_reduce. The map (fabsf) is applied to each element as it is loaded and the
// results are summed in the same pass: no array of |x| is ever written (CuPy's
// abs(x).sum() makes one and takes about 5 times as long as its sum). Compared
// here with a serial host loop and with the host target on all cores; results
// are checked against a double-precision reference, speedups printed.
#include <ufunc/ufunc.hpp>

#include "timing_note.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

int main() {
  if (ufunc::cuda_backend && !ufunc::device_available()) {
    std::puts("abs_sum: no CUDA device, skipped");
    return 77;
  }
  const auto abs_sum = ufunc::map_reduce([] UFUNC_HD (float v) { return fabsf(v); }, ufunc::plus{});
  using clock = std::chrono::steady_clock;
  bool ok = true;
  // On the host backend the default target is the host itself: only the host
  // target is timed against the loop (a "device" column would time it twice).
  const bool gpu = ufunc::cuda_backend;
  if (gpu)
    std::printf("%10s %12s %12s %12s %14s %14s\n", "N", "loop ms", "host ms", "GPU ms", "host speedup", "GPU speedup");
  else
    std::printf("host backend (no GPU in this build): serial loop against the host target on all cores\n"
                "%10s %12s %12s %14s\n", "N", "loop ms", "host ms", "host speedup");
  for (int e : {16, 20, 24, 26}) {
    const std::size_t n = std::size_t(1) << e;
    std::vector<float> h(n);
    std::mt19937_64 rng(static_cast<unsigned>(e));
    std::normal_distribution<float> d(0.0f, 3.0f);
    for (auto& v : h) v = d(rng);
    double ref = 0;
    for (float v : h) ref += std::fabs(v);

    const int reps = e <= 20 ? 11 : 3;
    auto time = [&](auto fn, float& out) {
      out = fn();  // warm-up
      std::vector<double> t;
      for (int r = 0; r < reps; ++r) {
        const auto t0 = clock::now();
        out = fn();
        t.push_back(std::chrono::duration<double, std::milli>(clock::now() - t0).count());
      }
      std::sort(t.begin(), t.end());
      return t[t.size() / 2];
    };
    float r_loop, r_host, r_dev;
    const double t_loop = time([&] {
      float s = 0;
      for (float v : h) s += std::fabs(v);
      return s;
    }, r_loop);
    const auto xh = ufunc::asarray<ufunc::target::host>(h);
    const double t_host = time([&] { return abs_sum(xh); }, r_host);
    r_dev = r_host;
    if (gpu) {
      const auto xd = ufunc::to_device(h);
      const double t_dev = time([&] { return abs_sum(xd); }, r_dev);
      std::printf("%10zu %12.3f %12.3f %12.3f %13.1fx %13.1fx\n", n, t_loop, t_host, t_dev, t_loop / t_host,
                  t_loop / t_dev);
    } else {
      std::printf("%10zu %12.3f %12.3f %13.1fx\n", n, t_loop, t_host, t_loop / t_host);
    }
    const double bound = (e + 2) * std::ldexp(1.0, -24) * ref;  // tree-order sum of non-negative terms
    if (!(std::fabs(r_loop - ref) <= double(n) * std::ldexp(1.0, -24) * ref)) ok = false;  // serial bound
    for (float r : {r_host, r_dev})
      if (!(std::fabs(r - ref) <= bound)) {
        std::printf("  WRONG: %.9g vs reference %.9g\n", r, ref);
        ok = false;
      }
  }
  print_timing_note();
  std::printf("abs_sum: %s\n", ok ? "results match the double reference" : "MISMATCH");
  return ok ? 0 : 1;
}
