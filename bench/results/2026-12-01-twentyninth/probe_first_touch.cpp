// Session 29: what a new result std::vector costs on one thread (value-initialised:
// every page first touched, then zeroed by the library's memset), and what helps:
// madvise(MADV_HUGEPAGE) on its storage before the elements are made, or first
// touches spread over threads. Host only; ms per vector, medians of 5.
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdint>
#include <thread>
#include <vector>

static double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}
template <class F>
static double med(F f) {
  std::vector<double> t;
  for (int i = 0; i < 5; ++i) t.push_back(f());
  std::sort(t.begin(), t.end());
  return t[2];
}

int main() {
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  for (int e = 20; e <= 26; e += 2) {
    const std::size_t n = std::size_t(1) << e;
    const double plain = med([&] {
      auto t0 = std::chrono::steady_clock::now();
      std::vector<float> v(n);
      const double ms = ms_since(t0);
      if (v[n / 2] != 0.0f) std::puts("!");
      return ms;
    });
    const double huge = med([&] {
      auto t0 = std::chrono::steady_clock::now();
      std::vector<float> v;
      v.reserve(n);
      const auto a = reinterpret_cast<std::uintptr_t>(v.data());
      const std::uintptr_t lo = (a + 4095) & ~std::uintptr_t(4095), hi = (a + n * sizeof(float)) & ~std::uintptr_t(4095);
      if (hi > lo) (void)madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_HUGEPAGE);
      v.resize(n);
      const double ms = ms_since(t0);
      if (v[n / 2] != 0.0f) std::puts("!");
      return ms;
    });
    const double touched = med([&] {
      auto t0 = std::chrono::steady_clock::now();
      std::vector<float> v;
      v.reserve(n);
      auto* p = reinterpret_cast<volatile unsigned char*>(v.data());
      const std::size_t bytes = n * sizeof(float), per = (bytes + hw - 1) / hw;
      std::vector<std::thread> th;
      for (unsigned t = 0; t < hw; ++t)
        th.emplace_back([=] {
          for (std::size_t b = t * per; b < std::min(bytes, (t + 1) * per); b += 4096) p[b] = 0;
        });
      for (auto& x : th) x.join();
      v.resize(n);
      const double ms = ms_since(t0);
      if (v[n / 2] != 0.0f) std::puts("!");
      return ms;
    });
    std::printf("2^%d floats (%zu MiB): vector(n) %.2f ms (%.1f GB/s); MADV_HUGEPAGE then resize %.2f ms; %u threads touch, then resize %.2f ms\n",
                e, n * 4 >> 20, plain, 4e-6 * double(n) / plain, huge, hw, touched);
  }
  return 0;
}
