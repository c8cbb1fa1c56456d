// Core benchmark: measures the issue's performance targets as ratios against
// references timed in the same process (device events, warm-up, medians).
//   1. gaussian_pdf, float32, N = 2^27, scalars broadcast, into `out`:
//      >= 0.969 of a device copy of the same bytes (512 MiB read + 512 MiB
//      written), timed interleaved with it (was >= 0.85 of peak bandwidth on the
//      H100, whose copy reaches 0.878 of peak; bench_util.hpp, bandwidth_target)
//      and >= 0.97 of thrust::transform of the same lambda.
//   2. back-to-back async calls at N = 1024: host time per call
//      <= 1.25 x a raw <<<>>> launch of an empty kernel (batches interleaved).
//   3. broadcast (8192,1) + (1,8192) -> (8192,8192) float32, counting bytes
//      written: >= 0.873 of a device copy moving the same bytes (128 MiB read +
//      128 MiB written; was >= 0.75 of peak).
// Also reported (no target): the bandwidths / peak, per-call cost with a freshly
// allocated result, and a transposed (strided) input.
#include <ufunc/ufunc.hpp>

#include "bench_copy.cuh"
#include "bench_util.hpp"

#include <thrust/execution_policy.h>
#include <thrust/transform.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

constexpr float SQRT_2PI = 2.5066282746310002f;

__global__ void empty_kernel() {}

bool check_close(const std::vector<float>& a, const std::vector<float>& b, float rtol) {
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!(std::abs(a[i] - b[i]) <= rtol * std::max(std::abs(a[i]), std::abs(b[i])) + 1e-30f)) {
      std::printf("mismatch at %zu: %g vs %g\n", i, a[i], b[i]);
      return false;
    }
  return true;
}

}  // namespace

int main() {
  const auto dev = bench_device("bench_core", with_cc_and_memory | with_memory_clock);
  if (!dev) return 77;
  const double peak = dev->peak_bandwidth();  // bytes/s

  std::mt19937 rng(std::random_device{}());
  std::normal_distribution<float> normal(0.f, 1.f);

  // ---- 1. gaussian_pdf at N = 2^27 --------------------------------------------
  const std::size_t n = std::size_t(1) << 27;
  std::vector<float> hx(n);
  for (auto& v : hx) v = normal(rng);
  auto pdf = [] __host__ __device__(float x, float mean, float sigma) {
    float z = (x - mean) / sigma;
    return expf(-0.5f * z * z) / (sigma * SQRT_2PI);
  };
  auto gaussian_pdf = ufunc::vectorize(pdf, "gaussian_pdf");
  auto x = ufunc::to_device(hx);
  auto y = ufunc::empty_like(x);
  auto y_ref = ufunc::empty_like(x);

  const double bytes = 2.0 * n * sizeof(float);
  const bench_reference pdf_copy(bench_pass::copy, bytes, dev->multiprocessors);
  // One call between two events, as before the reference came in (25 each).
  const auto [copy_ms, uf_ms] =
      time_interleaved_ms([&] { pdf_copy(); }, [&] { gaussian_pdf(x, 0.0f, 1.0f, ufunc::out(y)); }, 25, 1);
  report("device-to-device copy, 2^27 float32 (read+write)", bytes / copy_ms / 1e6, "GB/s");

  const float* px = x.data();
  float* py = y_ref.data();
  const double th_ms = time_device_ms([&] {
    thrust::transform(thrust::cuda::par_nosync, px, px + n, py,
                      [pdf] __device__(float v) { return pdf(v, 0.0f, 1.0f); });
  });
  if (!check_close(y.to_host(), y_ref.to_host(), 1e-6f)) return 1;
  report("gaussian_pdf 2^27 into out: time", uf_ms, "ms");
  report("thrust::transform same lambda: time", th_ms, "ms");
  report_bandwidth("gaussian_pdf bandwidth", pdf_copy.name(), bytes, uf_ms, copy_ms, peak, {0.85, h100::copy_1gib});
  const double uf_thrust = th_ms / uf_ms;
  report("gaussian_pdf speed / thrust::transform speed", uf_thrust, "ratio", ">= 0.97", uf_thrust >= 0.97);

  // ---- 2. launch overhead at N = 1024 -------------------------------------------
  auto xs = ufunc::to_device(std::vector<float>(hx.begin(), hx.begin() + 1024));
  auto ys = ufunc::empty_like(xs);
  // Interleaved (raw, call, allocating call, raw, ...): timed minutes apart, the
  // ratio moved from 1.10 to 1.41 with the machine's drift.
  const auto per_call = host_seconds_per_call_interleaved(
      {[] { empty_kernel<<<1, 32>>>(); }, [&] { gaussian_pdf(xs, 0.0f, 1.0f, ufunc::out(ys)); },
       [&] { auto r = gaussian_pdf(xs, 0.0f, 1.0f); (void)r; }},
      2000, 15);
  const double raw_us = per_call[0] * 1e6, call_us = per_call[1] * 1e6, alloc_us = per_call[2] * 1e6;
  report("raw <<<>>> empty-kernel launch: host time per launch", raw_us, "us");
  report("ufunc call N=1024 into out: host time per call", call_us, "us");
  const double ov = call_us / raw_us;
  report("ufunc call / raw launch", ov, "ratio", "<= 1.25", ov <= 1.25);
  report("ufunc call N=1024 allocating its result: host time", alloc_us, "us");
  report("  allocating call / raw launch", alloc_us / raw_us, "ratio");

  // ---- 3. broadcast (8192,1) + (1,8192) -> (8192,8192) ---------------------------
  const ufunc::index_t m = 8192;
  std::vector<float> hc(m), hr(m);
  for (auto& v : hc) v = normal(rng);
  for (auto& v : hr) v = normal(rng);
  auto col = ufunc::to_device(hc, {m, 1});
  auto rowv = ufunc::to_device(hr, {1, m});
  auto add = ufunc::vectorize([] __host__ __device__(float a, float b) { return a + b; }, "add");
  auto big = ufunc::empty<float>({m, m});
  const double bc_bytes = double(m) * m * sizeof(float);
  const bench_reference bc_copy(bench_pass::copy, bc_bytes, dev->multiprocessors);
  const auto [bc_copy_ms, bc_ms] = time_interleaved_ms([&] { bc_copy(); }, [&] { add(col, rowv, ufunc::out(big)); }, 25, 1);
  {
    const auto hb = big.to_host();
    for (ufunc::index_t i = 0; i < m; i += 97)
      for (ufunc::index_t j = 0; j < m; j += 89)
        if (hb[static_cast<std::size_t>(i * m + j)] != hc[static_cast<std::size_t>(i)] + hr[static_cast<std::size_t>(j)]) {
          std::printf("broadcast mismatch at (%lld,%lld)\n", (long long)i, (long long)j);
          return 1;
        }
  }
  report("broadcast (8192,1)+(1,8192): time", bc_ms, "ms");
  report_bandwidth("broadcast written bandwidth", bc_copy.name(), bc_bytes, bc_ms, bc_copy_ms, peak,
                   {0.75, h100::copy_256mib});

  // ---- informative: strided input (transposed view) -------------------------------
  auto t_out = ufunc::empty<float>({m, m});
  const double tr_ms = time_device_ms([&] { add(big.view().transposed(), 1.0f, ufunc::out(t_out)); }, 2, 10);
  report("add(transposed 8192^2 view, 1): read+write bandwidth / peak", 2 * bc_bytes / tr_ms / 1e-3 / peak, "ratio");

  // ---- informative: short inner dim (per-element N-d kernel) ----------------------
  {
    const ufunc::index_t rows4 = ufunc::index_t(1) << 24;
    auto x4 = ufunc::to_device(std::vector<float>(hx.begin(), hx.begin() + rows4 * 4), {rows4, 4});
    auto a4 = ufunc::to_device(std::vector<float>{1.f, 2.f, 3.f, 4.f});
    auto o4 = ufunc::empty<float>({rows4, 4});
    const double ms = time_device_ms([&] { add(x4, a4, ufunc::out(o4)); }, 2, 10);
    report("add((2^24,4), (4,)): read+write bandwidth / peak", 2.0 * rows4 * 4 * 4 / ms / 1e-3 / peak, "ratio");
  }

  summary("bench_core");
  return 0;  // targets are reported, not asserted: timings are not test verdicts
}
