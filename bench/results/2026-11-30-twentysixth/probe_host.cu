// Where a whole sum's host time goes (H200 host): the library built from a copy
// of include/ with time stamps (UFUNC_PROF(i): 0 the reducer's entry, 1 the
// CUDA backend's run, 2 cub_chunks' entry, 3 after CUB's size query, 4 after
// the temporary's allocation, 5 after the CUB calls, 6 cub_chunks' end), and
// the runtime calls such a path makes, each timed alone. Built with
// -I<the stamped copy>; the stamps cost nothing when ufunc_prof_on is false.
#include <ufunc/ufunc.hpp>

#include <cuda_bf16.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <random>
#include <vector>

#include <cub/device/device_reduce.cuh>

#include "../../bench_util.hpp"

namespace {
using clk = std::chrono::steady_clock;
double us(clk::time_point a, clk::time_point b) { return std::chrono::duration<double, std::micro>(b - a).count(); }

__global__ void empty_kernel() {}

/// Median host time of fn in microseconds (batches of `n` calls; the device
/// drains between batches).
double host_us(const std::function<void()>& fn, int n = 200, int batches = 9) {
  for (int i = 0; i < 10; ++i) fn();
  UFUNC_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<double> t;
  for (int b = 0; b < batches; ++b) {
    const auto t0 = clk::now();
    for (int i = 0; i < n; ++i) fn();
    const auto t1 = clk::now();
    UFUNC_CUDA_CHECK(cudaDeviceSynchronize());
    t.push_back(us(t0, t1) / n);
  }
  return median(t);
}

/// The stamped segments of fn (median over calls, each a batch of 50 behind the
/// previous on the stream).
void stamped(const char* name, const std::function<void()>& fn) {
  for (int i = 0; i < 5; ++i) fn();
  UFUNC_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<std::vector<double>> seg(8);
  for (int b = 0; b < 6; ++b) {
    for (int i = 0; i < 50; ++i) {
      for (auto& t : ufunc_prof_t) t = clk::time_point{};
      ufunc_prof_on = true;
      const auto t0 = clk::now();
      fn();
      const auto t1 = clk::now();
      ufunc_prof_on = false;
      // Segments between consecutive stamps that were set, from t0 to t1.
      clk::time_point prev = t0;
      int k = 0;
      for (int m = 0; m < 7; ++m) {
        if (ufunc_prof_t[m] == clk::time_point{}) continue;
        seg[m].push_back(us(prev, ufunc_prof_t[m]));
        prev = ufunc_prof_t[m];
        ++k;
      }
      seg[7].push_back(us(prev, t1));
    }
    UFUNC_CUDA_CHECK(cudaDeviceSynchronize());
  }
  std::printf("%-34s", name);
  const char* label[8] = {"->entry", "->run", "->cub_chunks", "->size", "->alloc", "->cub", "->end", "->return"};
  double total = 0;
  for (int m = 0; m < 8; ++m)
    if (!seg[m].empty()) {
      const double v = median(seg[m]);
      total += v;
      std::printf(" %s %.2f", label[m], v);
    }
  std::printf("  (sum of medians %.2f us)\n", total);
}
}  // namespace

int main() {
  auto dev = bench_device("probe_host", 0);
  if (!dev) return 0;
  std::mt19937 g(3);
  std::uniform_real_distribution<float> d(-1, 1);
  const std::size_t n = std::size_t(1) << 26;
  std::vector<float> hf(n);
  for (auto& v : hf) v = d(g);
  std::vector<__nv_bfloat16> hb(n * 4);
  for (auto& v : hb) v = __float2bfloat16(d(g));
  const auto xf = ufunc::to_device(hf);
  const auto xb = ufunc::to_device(hb);
  auto s = ufunc::empty<float>(ufunc::shape{});
  auto ri = ufunc::empty<ufunc::index_t>(ufunc::shape{});
  const ufunc::index_t K = 8192;
  auto X = ufunc::to_device(hf, {K, K}), Y = ufunc::to_device(hf, {K, K});
  auto o = ufunc::empty<float>({K});
  const auto e2 = ufunc::lazy(X) * Y;

  stamped("sum bf16 2^28 -> 0-d out", [&] { ufunc::sum(xb, ufunc::out(s)); });
  stamped("sum f32 2^26 -> 0-d out", [&] { ufunc::sum(xf, ufunc::out(s)); });
  stamped("sum(lazy(X) * Y, axis 1)", [&] { ufunc::sum(e2, ufunc::axis(1), ufunc::out(o)); });
  stamped("argmax f32 2^26 -> 0-d out", [&] { ufunc::argmax(xf, ufunc::out(ri)); });

  std::printf("host us a call:\n");
  std::printf("  ufunc::sum bf16 2^28 -> 0-d out  %.2f\n", host_us([&] { ufunc::sum(xb, ufunc::out(s)); }));
  std::printf("  ufunc::sum f32 2^26 -> 0-d out   %.2f\n", host_us([&] { ufunc::sum(xf, ufunc::out(s)); }));
  std::printf("  empty kernel launch              %.2f\n", host_us([] { empty_kernel<<<1, 32>>>(); }));
  std::printf("  empty kernel <<<5280, 1024>>>    %.2f\n", host_us([] { empty_kernel<<<5280, 1024>>>(); }));
  std::printf("  cudaGetDevice                    %.3f\n", host_us([] {
                int dv;
                (void)cudaGetDevice(&dv);
              }, 2000));
  std::printf("  cudaDeviceGetAttribute(SMs)      %.3f\n", host_us([] {
                int v;
                (void)cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0);
              }, 2000));
  std::printf("  cudaOccupancyMaxActiveBlocks     %.3f\n", host_us([] {
                int v;
                (void)cudaOccupancyMaxActiveBlocksPerMultiprocessor(&v, empty_kernel, 256, 0);
              }, 2000));
  std::printf("  cudaGetLastError                 %.3f\n", host_us([] { (void)cudaGetLastError(); }, 2000));
  std::printf("  cudaPeekAtLastError              %.3f\n", host_us([] { (void)cudaPeekAtLastError(); }, 2000));
  std::printf("  cudaStreamGetCaptureInfo         %.3f\n", host_us([] {
                cudaStreamCaptureStatus st;
                (void)cudaStreamGetCaptureInfo(cudaStreamPerThread, &st);
              }, 2000));
  std::printf("  cudaMallocAsync+FreeAsync 4 KiB  %.3f\n", host_us([] {
                void* p = nullptr;
                (void)cudaMallocAsync(&p, 4096, 0);
                (void)cudaFreeAsync(p, 0);
              }, 2000));
  {
    std::size_t bytes = 0;
    float* out = s.data();
    const float* in = xf.data();
    UFUNC_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, bytes, in, out, int(n)));
    void* temp = nullptr;
    UFUNC_CUDA_CHECK(cudaMalloc(&temp, bytes));
    std::printf("  cub::DeviceReduce::Sum size query %.3f\n", host_us([&] {
                  std::size_t b = 0;
                  (void)cub::DeviceReduce::Sum(nullptr, b, in, out, int(n));
                }, 2000));
    std::printf("  cub::DeviceReduce::Sum f32 2^26 (temp given) %.2f\n",
                host_us([&] { (void)cub::DeviceReduce::Sum(temp, bytes, in, out, int(n)); }));
    std::printf("  cub size query + run            %.2f\n", host_us([&] {
                  std::size_t b = 0;
                  (void)cub::DeviceReduce::Sum(nullptr, b, in, out, int(n));
                  (void)cub::DeviceReduce::Sum(temp, b, in, out, int(n));
                }));
    UFUNC_CUDA_CHECK(cudaFree(temp));
  }
  std::printf("probe_host: done\n");
  return 0;
}
