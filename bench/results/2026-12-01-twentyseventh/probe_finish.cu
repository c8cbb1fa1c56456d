// Whole float sums whose CUB first pass finishes the reduction in its last
// block (finish_in_first_pass) against the two-pass form, H200, session 27.
// Built three times from copies of include/ with reduce_all_finish_tuning's
// max_partials at 0 (never: the second pass as before), 2048 (the default) and
// 1 << 20 (always). For n = 2^16 .. 2^25 floats:
//   - ufunc::sum(x, out(r)) against the read kernel of the same bytes, batches
//     of 10 and one call between two events (interleaved);
//   - float s = ufunc::sum(x) (host latency) against CUB Sum + a copy of the
//     scalar + a stream sync (the floor of bench_reduce), interleaved rounds.
// Each result is checked against a double sum first.
#include <ufunc/ufunc.hpp>

#include <cub/device/device_reduce.cuh>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "../../bench_copy.cuh"
#include "../../bench_util.hpp"

using namespace bench;

int main() {
  auto dev = bench_device("probe_finish", 0);
  if (!dev) return 0;
  const int sms = dev->multiprocessors;
  std::mt19937 g(7);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> h(std::size_t(1) << 25);
  for (auto& v : h) v = u(g);
  float *d_out = nullptr, *pinned = nullptr;
  UFUNC_CUDA_CHECK(cudaMalloc(&d_out, sizeof(float)));
  UFUNC_CUDA_CHECK(cudaMallocHost(&pinned, sizeof(float)));
  bool ok = true;
  for (int lg : {16, 20, 22, 23, 24, 25}) {
    const std::size_t n = std::size_t(1) << lg;
    const auto x = ufunc::to_device(std::vector<float>(h.begin(), h.begin() + n));
    double ref = 0, mag = 0;
    for (std::size_t i = 0; i < n; ++i) ref += h[i], mag += std::fabs(h[i]);
    const float got = ufunc::sum(x);
    if (std::fabs(got - ref) > 2 * lg * 6e-8 * mag) std::printf("CHECK FAILED 2^%d: %g vs %g\n", lg, got, ref), ok = false;
    auto r0 = ufunc::empty<float>(ufunc::shape{});
    ufunc::sum(x, ufunc::out(r0));
    if (std::fabs(r0.to_host()[0] - ref) > 2 * lg * 6e-8 * mag) std::printf("CHECK FAILED out 2^%d\n", lg), ok = false;
    const double bytes = 4.0 * n;
    const bench_reference read(bench_pass::read, bytes, sms);
    const auto [tr, tv] = time_interleaved_ms([&] { read(); }, [&] { ufunc::sum(x, ufunc::out(r0)); }, 15, 10);
    const auto [tr1, tv1] = time_interleaved_ms([&] { read(); }, [&] { ufunc::sum(x, ufunc::out(r0)); }, 25, 1);
    std::size_t tb = 0;
    cub::DeviceReduce::Sum(nullptr, tb, x.data(), d_out, static_cast<int>(n));
    void* temp = nullptr;
    UFUNC_CUDA_CHECK(cudaMalloc(&temp, tb));
    volatile float sink = 0;
    const auto us = host_seconds_per_call_interleaved(
        {[&] {
           std::size_t b = tb;
           cub::DeviceReduce::Sum(temp, b, x.data(), d_out, static_cast<int>(n));
           UFUNC_CUDA_CHECK(cudaMemcpyAsync(pinned, d_out, sizeof(float), cudaMemcpyDeviceToHost, 0));
           UFUNC_CUDA_CHECK(cudaStreamSynchronize(0));
         },
         [&] { sink = sink + ufunc::sum(x); }},
        100, 31);
    UFUNC_CUDA_CHECK(cudaFree(temp));
    std::printf("2^%d: sum into out %.2f us (batches) %.2f us (one call); / read kernel %.3f, one call %.3f; "
                "to host %.2f us, floor %.2f us, ratio %.3f\n",
                lg, tv * 1e3, tv1 * 1e3, tr / tv, tr1 / tv1, us[1] * 1e6, us[0] * 1e6, us[1] / us[0]);
  }
  std::printf("probe_finish: %s\n", ok ? "checks passed" : "CHECKS FAILED");
  return ok ? 0 : 1;
}
