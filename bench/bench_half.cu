// 16-bit floats against the memory system's peak (issue 17), in one run:
//   1. gaussian_pdf of __nv_bfloat16, N = 2^28, into `out`: >= 0.85 of peak
//      bandwidth (2 + 2 bytes an element; computed in float, rounded once);
//   2. sum of __nv_bfloat16, N = 2^28, float accumulation, into a 0-d `out`:
//      >= 0.85 of peak (2 bytes an element);
// and, reported only: the same for __half, float at 2^27 (the same bytes), a
// device copy. Results are checked (pdf on a spread sample against double, the
// sum against a double sum of the rounded inputs).
#include <ufunc/ufunc.hpp>

#include "bench_util.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

using namespace bench;

namespace {

struct gauss_f {
  template <class T>
  UFUNC_HD T operator()(T x) const {
    const float v = static_cast<float>(x);
    return static_cast<T>(0.3989422804014327f * expf(-0.5f * v * v));
  }
};

template <class T>
const char* name_of() {
  if constexpr (std::is_same_v<T, float>) return "float32";
  if constexpr (std::is_same_v<T, __half>) return "float16";
  return "bfloat16";
}
template <class T>
double unit_roundoff() {
  if constexpr (std::is_same_v<T, float>) return std::ldexp(1.0, -24);
  if constexpr (std::is_same_v<T, __half>) return std::ldexp(1.0, -11);
  return std::ldexp(1.0, -8);
}
/// Half the spacing of T's subnormals: below T's smallest normal value (6.1e-5
/// for __half) a rounding error is absolute, not relative.
template <class T>
double subnormal_floor() {
  if constexpr (std::is_same_v<T, __half>) return std::ldexp(1.0, -25);
  if constexpr (std::is_same_v<T, __nv_bfloat16>) return std::ldexp(1.0, -134);
  return std::ldexp(1.0, -150);
}

bool all_correct = true;

template <class T>
void run(std::size_t n, double peak, bool target) {
  std::mt19937 rng(std::random_device{}());
  std::normal_distribution<float> normal(0.f, 1.f);
  std::vector<T> h(n);
  for (auto& v : h) v = static_cast<T>(normal(rng));
  const auto x = ufunc::to_device(h);
  auto y = ufunc::empty<T>(x.shape());
  auto s = ufunc::empty<float>(ufunc::shape{});
  const auto pdf = ufunc::vectorize(gauss_f{});
  const std::string tag = std::string(name_of<T>()) + " 2^" + std::to_string(static_cast<int>(std::log2(double(n))));
  const double pdf_ms = time_device_ms([&] { pdf(x, ufunc::out(y)); });
  const double sum_ms = time_device_ms([&] { ufunc::sum(x, ufunc::out(s)); });

  // Checks: the pdf on 2^20 spread elements, the sum against double.
  const auto got = y.to_host();
  bool ok = true;
  const std::size_t step = std::max<std::size_t>(1, n >> 20);
  for (std::size_t i = 0; i < n; i += step) {
    const double v = static_cast<float>(h[i]);
    const double want = 0.3989422804014327 * std::exp(-0.5 * v * v);
    if (!(std::fabs(static_cast<float>(got[i]) - want) <= (unit_roundoff<T>() + 1e-6) * want + subnormal_floor<T>()))
      ok = false;
  }
  double ref = 0, mag = 0;
  for (const auto& v : h) ref += static_cast<float>(v), mag += std::fabs(static_cast<float>(v));
  const float total = s.to_host()[0];
  if (!(std::fabs(total - ref) <= 1e-5 * mag)) ok = false;
  if (!ok) std::printf("CHECK FAILED: %s (sum %.6g, reference %.6g)\n", tag.c_str(), double(total), ref);
  all_correct = all_correct && ok;

  const double pdf_ratio = 2.0 * sizeof(T) * n / (pdf_ms * 1e-3) / peak;
  const double sum_ratio = 1.0 * sizeof(T) * n / (sum_ms * 1e-3) / peak;
  report("gaussian_pdf " + tag + " into out: bandwidth / peak", pdf_ratio, "ratio", target ? ">= 0.85" : "",
         pdf_ratio >= 0.85);
  report("sum " + tag + " (float accumulation): bandwidth / peak", sum_ratio, "ratio", target ? ">= 0.85" : "",
         sum_ratio >= 0.85);
  report("  gaussian_pdf " + tag + ": time", pdf_ms, "ms");
  report("  sum " + tag + ": time", sum_ms, "ms");
}

}  // namespace

int main() {
  const auto dev = bench_device("bench_half", with_cc_and_memory | with_memory_clock);
  if (!dev) return 77;
  const double peak = dev->peak_bandwidth();
  {
    const std::size_t n = std::size_t(1) << 27;
    auto a = ufunc::empty<float>(ufunc::shape{static_cast<ufunc::index_t>(n)});
    auto b = ufunc::empty<float>(ufunc::shape{static_cast<ufunc::index_t>(n)});
    const double ms = time_device_ms([&] {
      UFUNC_CUDA_CHECK(cudaMemcpyAsync(b.data(), a.data(), n * sizeof(float), cudaMemcpyDeviceToDevice));
    });
    report("device-to-device copy 1 GiB (read+write) / peak", 2.0 * n * sizeof(float) / (ms * 1e-3) / peak, "ratio");
  }
  run<__nv_bfloat16>(std::size_t(1) << 28, peak, true);
  run<__half>(std::size_t(1) << 28, peak, false);
  run<float>(std::size_t(1) << 27, peak, false);
  summary("bench_half");
  return all_correct ? 0 : 1;
}
