// Host time of the pieces of a whole sum (issue 36's bf16 sum timed one call at a
// time, and bench_reduce's sum to host / floor, both pay the host's time before the
// first launch), H200 host, session 28: each piece timed alone over batches of
// asynchronous calls (bench_util.hpp's time_host_us_per_call; 2^20 floats, the
// device keeps up).
#include <ufunc/ufunc.hpp>

#include <cub/device/device_reduce.cuh>

#include <cstdio>
#include <vector>

#include "../../bench_util.hpp"

int main() {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  const auto dev = bench::bench_device("probe_host_costs", 0);
  if (!dev) return 0;
  const int n = 1 << 20;
  const auto x = ufunc::to_device(std::vector<float>(n, 1.0f));
  const auto xb = ufunc::to_device(std::vector<__nv_bfloat16>(n, __float2bfloat16(1.0f)));
  auto s0 = ufunc::empty<float>(ufunc::shape{});
  std::size_t bytes = 0;
  cub::DeviceReduce::Sum(nullptr, bytes, x.data(), s0.data(), n);
  void* temp = nullptr;
  UFUNC_CUDA_CHECK(cudaMalloc(&temp, bytes));
  cudaStream_t st = nullptr;  // the legacy stream, as the calls below
  auto cub_sum = [&] { cub::DeviceReduce::Sum(temp, bytes, x.data(), s0.data(), n, st); };
  auto cub_query = [&] {
    std::size_t b = 0;
    cub::DeviceReduce::Sum(nullptr, b, x.data(), s0.data(), n, st);
  };
  auto lib_sum = [&] { ufunc::sum(x, ufunc::out(s0)); };
  auto lib_sum_bf16 = [&] { ufunc::sum(xb, ufunc::out(s0)); };
  auto counters = [&] { (void)ufunc::detail::finish_counters::for_stream(ufunc::stream_ref()); };
  auto get_id = [&] {
    unsigned long long id = 0;
    (void)cudaStreamGetId(st, &id);
  };
  auto capturing = [&] {
    cudaStreamCaptureStatus c{};
    (void)cudaStreamIsCapturing(st, &c);
  };
  auto get_device = [&] {
    int d = 0;
    (void)cudaGetDevice(&d);
  };
  auto alloc_free = [&] {
    void* p = nullptr;
    (void)cudaMallocAsync(&p, 4096, st);
    (void)cudaFreeAsync(p, st);
  };
  for (int round = 0; round < 3; ++round) {
    std::printf("round %d, host us a call:\n", round);
    std::printf("  ufunc::sum(x, out) f32 2^20      %.2f\n", bench::time_host_us_per_call(lib_sum, 1000, 9));
    std::printf("  ufunc::sum(x, out) bf16 2^20     %.2f\n", bench::time_host_us_per_call(lib_sum_bf16, 1000, 9));
    std::printf("  cub Sum, temp given (2 launches) %.2f\n", bench::time_host_us_per_call(cub_sum, 1000, 9));
    std::printf("  cub Sum size query               %.2f\n", bench::time_host_us_per_call(cub_query, 1000, 9));
    std::printf("  finish_counters::for_stream      %.2f\n", bench::time_host_us_per_call(counters, 1000, 9));
    std::printf("  cudaStreamGetId                  %.2f\n", bench::time_host_us_per_call(get_id, 1000, 9));
    std::printf("  cudaStreamIsCapturing            %.2f\n", bench::time_host_us_per_call(capturing, 1000, 9));
    std::printf("  cudaGetDevice                    %.2f\n", bench::time_host_us_per_call(get_device, 1000, 9));
    std::printf("  cudaMallocAsync + cudaFreeAsync  %.2f\n", bench::time_host_us_per_call(alloc_free, 1000, 9));
  }
  UFUNC_CUDA_CHECK(cudaDeviceSynchronize());
  std::printf("result %.1f (want %d)\n", double(s0.to_host()[0]), n);
  return 0;
}
