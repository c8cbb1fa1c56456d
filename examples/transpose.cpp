// transpose: the seed's transpose comparison, in C++.
//
// Every variant of the build's device target (CUDA: naive, tiled, optimized;
// host build: blocked) transposes a float matrix of 1024^2 and 8192^2
// elements; each result is checked element for element, and its bandwidth
// (bytes read + bytes written per second) is printed next to a plain copy of
// the same bytes, the ceiling a transpose can approach. The naive kernel
// writes one element per 32-byte memory sector; the tiled one goes through a
// padded shared-memory tile so that both sides are coalesced; the optimized one
// also moves 16 bytes per access and keeps a whole tile of reads in flight.
#include <ufunc/ufunc.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace {

double median_seconds(const std::function<void()>& fn) {
  fn();
  ufunc::synchronize();
  std::vector<double> t;
  for (int r = 0; r < 5; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    ufunc::synchronize();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[2];
}

}  // namespace

int main() {
  if (ufunc::cuda_backend && !ufunc::device_available()) {
    std::puts("transpose: no CUDA device, skipped");
    return 77;
  }
  bool ok = true;
  std::printf("%-16s %6s %10s %10s %14s\n", "implementation", "n", "ms", "GB/s", "vs copy");
  for (long n : {1024L, 8192L}) {
    std::vector<float> h(static_cast<std::size_t>(n * n));
    // Integers below 2^24 (exact in float) scattered by a multiplicative hash,
    // so an element read from the wrong place shows up.
    for (std::size_t i = 0; i < h.size(); ++i) h[i] = static_cast<float>((i * 2654435761u) % 16777216u);
    const auto x = ufunc::to_device(h, ufunc::shape{n, n});
    auto y = ufunc::empty<float>(ufunc::shape{n, n});
    const double bytes = 2.0 * n * n * sizeof(float);
    auto copy_dst = ufunc::empty<float>(ufunc::shape{n, n});
    const double copy_s = median_seconds([&] { (void)ufunc::transpose(x, {0, 1}, ufunc::out(copy_dst)); });
    std::printf("%-16s %6ld %10.3f %10.1f %14s\n", "copy", n, copy_s * 1e3, bytes / copy_s / 1e9, "1.00");
    for (auto v : ufunc::transpose_variants()) {
      const double s = median_seconds([&] { ufunc::transpose(x, ufunc::out(y), v); });
      const auto got = y.to_host();
      std::size_t bad = 0;
      for (long i = 0; i < n; ++i)
        for (long j = 0; j < n; ++j) bad += got[static_cast<std::size_t>(j * n + i)] != h[static_cast<std::size_t>(i * n + j)];
      ok = ok && bad == 0;
      std::printf("%-16s %6ld %10.3f %10.1f %14.2f%s\n", ufunc::to_string(v), n, s * 1e3, bytes / s / 1e9, copy_s / s,
                  bad ? "  MISMATCH" : "");
    }
  }
  std::puts(ok ? "transpose: ok" : "transpose: FAILED");
  return ok ? 0 : 1;
}
