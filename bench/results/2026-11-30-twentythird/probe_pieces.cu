// Layouts the elementwise engine's kernel choice touches (session 23): a
// misaligned contiguous pair (flat<1> before, the row kernel now), and N-d
// layouts past 32-bit indices (64-bit index kernels before, 32-bit pieces now).
// Each time is the median of device-event timings; the copy of the same bytes is
// the reference measured in the same run.
#include <ufunc/ufunc.hpp>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>

#include <cuda_runtime.h>

namespace {
double median_ms(const std::function<void()>& fn, int reps = 15) {
  cudaEvent_t a, b;
  cudaEventCreate(&a), cudaEventCreate(&b);
  for (int i = 0; i < 3; ++i) fn();
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    cudaEventRecord(a);
    fn();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}
}  // namespace

int main() {
  using ufunc::index_t;
  using ufunc::shape;
  auto add = ufunc::vectorize([] UFUNC_HD(float a, float b) { return a + b; }, "add");
  auto add8 = ufunc::vectorize([] UFUNC_HD(std::uint8_t a, std::uint8_t b) { return std::uint8_t(a + b); }, "add8");
  {
    const index_t n = index_t(1) << 28;
    auto x = ufunc::full<float>(shape{n + 1}, 1.f), y = ufunc::full<float>(shape{n + 1}, 2.f);
    auto o = ufunc::empty<float>(shape{n});
    const auto xv = x.view(), yv = y.view();
    const double copy = median_ms([&] { cudaMemcpyAsync(o.data(), x.data(), n * 4, cudaMemcpyDeviceToDevice); });
    const double al = median_ms([&] { add(xv.sliced(0, 0, n), yv.sliced(0, 0, n), ufunc::out(o)); });
    const double mis2 = median_ms([&] { add(xv.sliced(0, 1, n + 1), yv.sliced(0, 1, n + 1), ufunc::out(o)); });
    const double mis1 = median_ms([&] { add(xv.sliced(0, 1, n + 1), yv.sliced(0, 0, n), ufunc::out(o)); });
    std::printf("float 2^28: copy %.3f ms; aligned add %.3f; both inputs misaligned %.3f; one misaligned %.3f\n", copy,
                al, mis2, mis1);
    auto o8 = ufunc::empty<std::uint8_t>(shape{4 * n});
    auto x8 = ufunc::full<std::uint8_t>(shape{4 * n + 1}, 1), y8 = ufunc::full<std::uint8_t>(shape{4 * n + 1}, 2);
    const double m8 = median_ms([&] { add8(x8.view().sliced(0, 1, 4 * n + 1), y8.view().sliced(0, 0, 4 * n), ufunc::out(o8)); });
    const double a8 = median_ms([&] { add8(x8.view().sliced(0, 0, 4 * n), y8.view().sliced(0, 0, 4 * n), ufunc::out(o8)); });
    std::printf("uint8 2^30: aligned %.3f ms; one misaligned %.3f\n", a8, m8);
  }
  {
    const index_t n = (index_t(1) << 32) + 64;  // float: 16 GiB
    auto x = ufunc::full<float>(shape{n}, 1.f);
    const index_t half = n / 2;
    auto o = ufunc::empty<float>(shape{half});
    const double copy = median_ms([&] { cudaMemcpyAsync(o.data(), x.data(), half * 4, cudaMemcpyDeviceToDevice); }, 7);
    const double st = median_ms([&] { add(x.view().sliced(0, 0, n, 2), 1.f, ufunc::out(o)); }, 7);
    std::printf("x[::2] + 1, 2^31 + 32 results (offsets span 2^32): %.3f ms; copy of the results' bytes %.3f\n", st, copy);
    auto o2 = ufunc::empty<float>(shape{n});
    const double rv = median_ms([&] { add(x.view().sliced(0, n - 1, -n - 1, -1), x, ufunc::out(o2)); }, 7);
    std::printf("x[::-1] + x, 2^32 + 64 results: %.3f ms\n", rv);
  }
  {
    const index_t r = index_t(1) << 16, c = (index_t(1) << 15) + 3;  // 2^31 + 3 * 2^16 results
    auto col = ufunc::full<float>(shape{r, 1}, 1.f), row = ufunc::full<float>(shape{c}, 2.f);
    auto o = ufunc::empty<float>(shape{r, c});
    const double t = median_ms([&] { add(col, row, ufunc::out(o)); }, 7);
    std::printf("(2^16, 1) + (2^15 + 3,) into (2^16, 2^15 + 3): %.3f ms\n", t);
    auto col2 = ufunc::full<float>(shape{r / 2, 1}, 1.f);
    auto oh = ufunc::empty<float>(shape{r / 2, c});
    const double th = median_ms([&] { add(col2, row, ufunc::out(oh)); }, 7);
    std::printf("(2^15, 1) + (2^15 + 3,) into (2^15, 2^15 + 3) (one launch): %.3f ms\n", th);
    auto rowa = ufunc::full<float>(shape{c - 3}, 2.f);
    auto oa = ufunc::empty<float>(shape{r, c - 3});
    const double ta = median_ms([&] { add(col, rowa, ufunc::out(oa)); }, 7);
    auto oah = ufunc::empty<float>(shape{r / 2, c - 3});
    const double tah = median_ms([&] { add(col2, rowa, ufunc::out(oah)); }, 7);
    std::printf("(2^16, 1) + (2^15,): %.3f ms; (2^15, 1) + (2^15,): %.3f ms\n", ta, tah);
    auto col3 = ufunc::full<float>(shape{(index_t(1) << 31) / 3 + 5, 1}, 1.f), row3 = ufunc::full<float>(shape{3}, 2.f);
    auto o3 = ufunc::empty<float>(shape{(index_t(1) << 31) / 3 + 5, 3});
    const double t3 = median_ms([&] { add(col3, row3, ufunc::out(o3)); }, 7);
    std::printf("(715827887, 1) + (3,) (per-element N-d kernel): %.3f ms\n", t3);
  }
  return 0;
}
