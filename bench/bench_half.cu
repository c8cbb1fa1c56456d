// 16-bit floats against reference passes over the same bytes (issue 17), in one
// run, each call timed interleaved with its reference (bench_util.hpp,
// bandwidth_target):
//   1. gaussian_pdf of __nv_bfloat16, N = 2^28, into `out` (2 + 2 bytes an
//      element; computed in float, rounded once): >= 0.969 of a device copy of
//      the same bytes (was >= 0.85 of peak on the H100, copy 0.878 of peak);
//   2. sum of __nv_bfloat16, N = 2^28, float accumulation, into a 0-d `out`
//      (2 bytes an element): >= 0.950 of a read kernel over the same bytes (was
//      >= 0.85 of peak; a read reaches 0.895 of peak on the H100);
// and, reported only: the same for __half, float at 2^27 (the same bytes), a
// device copy, every bandwidth / peak. Results are checked (pdf on a spread
// sample against double, the sum against a double sum of the rounded inputs).
#include <ufunc/ufunc.hpp>

#include "bench_copy.cuh"
#include "bench_util.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <tuple>
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
void run(std::size_t n, double peak, int sms, bool target) {
  std::mt19937 rng(std::random_device{}());
  std::normal_distribution<float> normal(0.f, 1.f);
  std::vector<T> h(n);
  for (auto& v : h) v = static_cast<T>(normal(rng));
  const auto x = ufunc::to_device(h);
  auto y = ufunc::empty<T>(x.shape());
  auto s = ufunc::empty<float>(ufunc::shape{});
  const auto pdf = ufunc::vectorize(gauss_f{});
  const std::string tag = std::string(name_of<T>()) + " 2^" + std::to_string(static_cast<int>(std::log2(double(n))));
  const double pdf_bytes = 2.0 * sizeof(T) * n, sum_bytes = 1.0 * sizeof(T) * n;
  // One call between two events, as before the references came in (25 each).
  double pdf_ms = 0, sum_ms = 0, copy_ms = 0, read_ms = 0;
  {
    const bench_reference copy(bench_pass::copy, pdf_bytes, sms);
    std::tie(copy_ms, pdf_ms) = time_interleaved_ms([&] { copy(); }, [&] { pdf(x, ufunc::out(y)); }, 25, 1);
  }
  {
    const bench_reference read(bench_pass::read, sum_bytes, sms);
    std::tie(read_ms, sum_ms) = time_interleaved_ms([&] { read(); }, [&] { ufunc::sum(x, ufunc::out(s)); }, 25, 1);
  }

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

  const bandwidth_target pdf_target{0.85, h100::copy_1gib}, sum_target{0.85, h100::read_512mib};
  if (target) {
    report_bandwidth("gaussian_pdf " + tag + " into out: bandwidth", "device copy", pdf_bytes, pdf_ms, copy_ms, peak,
                     pdf_target);
    report_bandwidth("sum " + tag + " (float accumulation): read bandwidth", "read kernel", sum_bytes, sum_ms, read_ms,
                     peak, sum_target);
  } else {  // the same figures, reported only
    report("gaussian_pdf " + tag + " into out: bandwidth / device copy (same bytes)", copy_ms / pdf_ms, "ratio");
    report("  its bandwidth / peak", pdf_bytes / (pdf_ms * 1e-3) / peak, "ratio");
    report("sum " + tag + " (float accumulation): read bandwidth / read kernel (same bytes)", read_ms / sum_ms,
           "ratio");
    report("  its read bandwidth / peak", sum_bytes / (sum_ms * 1e-3) / peak, "ratio");
  }
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
  const int sms = dev->multiprocessors;
  run<__nv_bfloat16>(std::size_t(1) << 28, peak, sms, true);
  run<__half>(std::size_t(1) << 28, peak, sms, false);
  run<float>(std::size_t(1) << 27, peak, sms, false);
  summary("bench_half");
  return all_correct ? 0 : 1;
}
