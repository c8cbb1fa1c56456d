// streaming: computing on data that lives in host memory, and on more of it than
// the device may hold.
//
// A device ufunc (or sum) given host memory streams it: the call is cut into
// chunks that fit the device memory limit, and the copy of chunk k+1 to the
// device, the kernel of chunk k and the copy of chunk k-1 back overlap on
// several streams. Three cases side by side, each checked against a host loop
// and timed:
//   1. std::vector in, std::vector out (pageable memory: staged through
//      page-locked buffers by host threads while the device works);
//   2. ufunc::pinned_array in and out (page-locked: copied directly, fastest);
//   3. out of core: the device memory limit set far below the data
//      (ufunc::set_device_memory_limit), so the same calls run in many chunks,
//      and a sum of the whole array.
// On the host backend the "device" is the host: nothing streams, and the
// example shows that the same program runs unchanged. Sizes are small so that
// it runs in seconds anywhere; pass a size in millions of elements (e.g. 2000)
// to stream 8 GB on a GPU.
#include <ufunc/ufunc.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

constexpr float SQRT_2PI = 2.5066282746310002f;

struct gaussian_fn {
  UFUNC_HD float operator()(float x, float mean, float sigma) const {
    const float z = (x - mean) / sigma;
    return expf(-0.5f * z * z) / (sigma * SQRT_2PI);
  }
};

int main(int argc, char** argv) {
  if (ufunc::cuda_backend && !ufunc::device_available()) {
    std::puts("streaming: no CUDA device, skipped");
    return 77;
  }
  const auto gaussian_pdf = ufunc::vectorize(gaussian_fn{}, "gaussian_pdf");
  const std::size_t n = argc > 1 ? static_cast<std::size_t>(std::atof(argv[1]) * 1e6) : std::size_t(1) << 22;
  std::vector<float> hx(n);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  for (auto& v : hx) v = dist(rng);

  // The host reference, and the check: the float formula is within (4 + 3u) eps
  // of the exact density (see gaussian_pdf.cpp); the reference here is the same
  // float formula on the host, so 8 eps relative covers both roundings.
  std::vector<float> want(n);
  double want_sum = 0, abs_sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    want[i] = gaussian_fn{}(hx[i], 0.0f, 1.0f);
    want_sum += want[i];
  }
  abs_sum = want_sum;  // all positive
  int failures = 0;
  auto check = [&](const char* what, const float* got) {
    std::size_t bad = 0;
    for (std::size_t i = 0; i < n; ++i)
      if (std::fabs(got[i] - want[i]) > 8 * 1.2e-7 * std::fabs(want[i]) + 1e-30) ++bad;
    if (bad) {
      std::printf("  %s: %zu of %zu elements wrong\n", what, bad, n);
      ++failures;
    }
  };
  using clock = std::chrono::steady_clock;
  auto ms_since = [](clock::time_point t) { return std::chrono::duration<double, std::milli>(clock::now() - t).count(); };
  const double gb = 2.0 * double(n) * sizeof(float) / 1e9;  // bytes in and out
  std::printf("%s backend, %zu float32 elements (%.2f GB in + out), ", ufunc::cuda_backend ? "CUDA" : "host", n, gb);
  if (ufunc::cuda_backend)
    std::printf("device memory limit %.2f GiB\n", double(ufunc::device_memory_limit()) / (1ull << 30));
  else
    std::printf("no device memory limit (nothing streams)\n");

  // 1. std::vector in, std::vector out.
  (void)gaussian_pdf(hx, 0.0f, 1.0f);  // warm-up: streams, staging buffers, kernels
  auto t = clock::now();
  const std::vector<float> y1 = gaussian_pdf(hx, 0.0f, 1.0f);
  const double ms1 = ms_since(t);
  check("std::vector", y1.data());
  std::printf("  std::vector -> std::vector     %8.2f ms  %6.2f GB/s\n", ms1, gb / (ms1 / 1e3));

  // 2. pinned_array in and out.
  ufunc::pinned_array<float> px(ufunc::shape{static_cast<ufunc::index_t>(n)}), py(px.shape());
  std::copy(hx.begin(), hx.end(), px.data());
  gaussian_pdf(px, 0.0f, 1.0f, ufunc::out(py));  // warm-up
  t = clock::now();
  gaussian_pdf(px, 0.0f, 1.0f, ufunc::out(py));
  const double ms2 = ms_since(t);
  check("pinned_array", py.data());
  std::printf("  pinned_array -> pinned_array   %8.2f ms  %6.2f GB/s\n", ms2, gb / (ms2 / 1e3));

  // 3. Out of core: a limit of an eighth of the data (at least 1 MiB), so the
  //    calls run in many chunks; then the sum of the whole array.
  const std::size_t limit = std::max<std::size_t>(n * sizeof(float) / 8, std::size_t(1) << 20);
  ufunc::set_device_memory_limit(limit);
  std::vector<float> y3(n);
  t = clock::now();
  gaussian_pdf(hx, 0.0f, 1.0f, ufunc::out(ufunc::make_view<ufunc::target::host>(y3.data(), ufunc::shape{static_cast<ufunc::index_t>(n)})));
  const double ms3 = ms_since(t);
  check("out of core", y3.data());
  t = clock::now();
  const float s = ufunc::sum(y3);
  const double ms4 = ms_since(t);
  ufunc::set_device_memory_limit(0);  // back to the default
  std::printf("  out of core, limit %.1f MiB:   %8.2f ms  %6.2f GB/s\n", double(limit) / (1 << 20), ms3, gb / (ms3 / 1e3));
  std::printf("  sum, same limit:               %8.2f ms  %6.2f GB/s  (sum %.6g, host %.6g)\n", ms4,
              double(n) * sizeof(float) / 1e9 / (ms4 / 1e3), double(s), want_sum);
  // A float sum: tree order within chunks, chunks left to right; the bound is
  // (log2 n + chunks) eps sum|x|. A chunk holds at least limit / 24 elements
  // (3 input buffers and 3 partials of 4 bytes per row), or at least 1 MiB of input.
  const double chunks = double(n) / double(std::min(limit / 24, (std::size_t(1) << 20) / 4)) + 1;
  if (std::fabs(double(s) - want_sum) > (std::log2(double(n)) + chunks) * 1.2e-7 * abs_sum) {
    std::printf("  sum: %.9g, host %.9g: outside the bound\n", double(s), want_sum);
    ++failures;
  }
  if (failures) {
    std::puts("streaming: FAILED");
    return 1;
  }
  std::puts("streaming: all results match the host loop");
  return 0;
}
