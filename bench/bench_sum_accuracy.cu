// Float sum accuracy at scale (issue 36): the relative error of ufunc::sum and of
// an axis-0 column sum ((N / 1024, 1024), column 0) of N copies of 0.1f, whose
// exact sum N * double(0.1f) is known, at N = 2^27, 2^30 and 2^32, next to the
// target 2 log2(N) eps (eps = 2^-24); also "2^24 then ones" (a float accumulator
// past 2^24 drops every following 1.0) and the time of each sum. The CuPy and
// PyTorch figures of the same data come from bench/peers/sum_accuracy.py, run
// beside this program. Sizes that do not fit the free memory are skipped.
#include <ufunc/ufunc.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

#include "bench_util.hpp"

int main() {
  const auto dev = bench::bench_device("bench_sum_accuracy", bench::with_cc_and_memory);
  if (!dev) return 77;
  std::printf("%-6s %-16s %-10s %12s %12s %10s %8s\n", "N", "data", "call", "rel. error", "2log2(N)eps", "ms", "within");
  bool all_ok = true;
  for (int lg : {27, 30, 32}) {
    const ufunc::index_t n = ufunc::index_t(1) << lg;
    std::size_t free_b = 0, total_b = 0;
    UFUNC_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    if (free_b < static_cast<std::size_t>(n) * 4 + (std::size_t(1) << 30)) {
      std::printf("2^%d: skipped (%.1f GiB free)\n", lg, free_b / double(1ull << 30));
      continue;
    }
    for (int kind = 0; kind < 2; ++kind) {
      auto x = ufunc::full<float>(ufunc::shape{n}, kind == 0 ? 0.1f : 1.0f);
      if (kind == 1) {
        const float big = 16777216.0f;
        UFUNC_CUDA_CHECK(cudaMemcpy(x.data(), &big, sizeof(float), cudaMemcpyHostToDevice));
      }
      const double target = 2 * lg * std::ldexp(1.0, -24);
      auto row = [&](const char* call, double got, double exact, double ms) {
        const double rel = std::fabs(got - exact) / exact;
        const bool ok = rel <= target;
        all_ok &= ok;
        std::printf("2^%-4d %-16s %-10s %12.3g %12.3g %10.3f %8s\n", lg, kind == 0 ? "0.1f each" : "2^24 then ones",
                    call, rel, target, ms, ok ? "yes" : "NO");
      };
      const double exact = kind == 0 ? double(n) * double(0.1f) : 16777216.0 + double(n - 1);
      float s = 0;
      const double ms = bench::time_device_ms([&] { s = ufunc::sum(x); });
      row("sum", s, exact, ms);
      const ufunc::index_t rows = n / 1024;
      auto col = ufunc::empty<float>(ufunc::shape{1024});
      const auto m = ufunc::make_view(x.data(), ufunc::shape{rows, 1024});
      const double ms0 = bench::time_device_ms([&] { ufunc::sum(m, ufunc::axis(0), ufunc::out(col)); });
      const float c0 = col.to_host()[0];
      const double exact0 = kind == 0 ? double(rows) * double(0.1f) : 16777216.0 + double(rows - 1);
      row("axis 0", c0, exact0, ms0);
    }
  }
  std::printf("\n%s\n", all_ok ? "all within 2 log2(N) eps" : "SOME OUTSIDE 2 log2(N) eps");
  return all_ok ? 0 : 1;
}
