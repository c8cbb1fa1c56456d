// Whole sums of misaligned views (session 23): CUB over plain pointers before,
// the 16-byte packs after a head of 1-3 elements now; aligned sums for scale.
// Medians of device-event timings of the call returning to the host.
#include <ufunc/ufunc.hpp>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>

#include <cuda_runtime.h>

namespace {
double median_ms(const std::function<void()>& fn, int reps = 21) {
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
  const index_t n = index_t(1) << 28;
  auto x = ufunc::full<float>(shape{n + 4}, 0.5f);
  volatile float sink = 0;
  const double al = median_ms([&] { sink = ufunc::sum(ufunc::make_view(x.data(), shape{n})); });
  const double m1 = median_ms([&] { sink = ufunc::sum(ufunc::make_view(x.data() + 1, shape{n})); });
  const double m3 = median_ms([&] { sink = ufunc::sum(ufunc::make_view(x.data() + 3, shape{n})); });
  std::printf("float sum 2^28: aligned %.3f ms, 1 element in %.3f, 3 elements in %.3f (GB/s %.0f %.0f %.0f)\n", al, m1,
              m3, 4.0 * n / al / 1e6, 4.0 * n / m1 / 1e6, 4.0 * n / m3 / 1e6);
  auto d = ufunc::full<double>(shape{n / 2 + 2}, 0.25);
  const double dal = median_ms([&] { sink = float(ufunc::sum(ufunc::make_view(d.data(), shape{n / 2}))); });
  const double dm1 = median_ms([&] { sink = float(ufunc::sum(ufunc::make_view(d.data() + 1, shape{n / 2}))); });
  std::printf("double sum 2^27: aligned %.3f ms, 1 element in %.3f\n", dal, dm1);
  std::printf("check: %g %g\n", double(ufunc::sum(ufunc::make_view(x.data() + 1, shape{n}))), double(n) * 0.5);
  return 0;
}
