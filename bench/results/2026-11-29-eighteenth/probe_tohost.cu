// Probe: the 2^20 float sum returned to the host (bench_reduce part 3), host cost
// of an asynchronous sum into `out`, and the CUB floor; built from two trees.
#include <ufunc/ufunc.hpp>
#include <cub/device/device_reduce.cuh>
#include <chrono>
#include <cstdio>
#include <random>
#include <vector>
#include "../../bench_util.hpp"

double time_sync_call_us(const std::function<void()>& fn, int calls = 200, int batches = 15) {
  for (int i = 0; i < calls; ++i) fn();
  std::vector<double> t;
  for (int b = 0; b < batches; ++b) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) fn();
    const auto t1 = std::chrono::steady_clock::now();
    t.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / calls);
  }
  return median(t);
}
int main() {
  const int n = 1 << 20;
  std::mt19937 rng(3); std::normal_distribution<float> nd(0.f, 1.f);
  std::vector<float> h(n); for (auto& v : h) v = nd(rng);
  auto x = ufunc::to_device(h); auto r = ufunc::empty<float>(ufunc::shape{});
  float* fo; cudaMalloc(&fo, 16); float* pin; cudaMallocHost(&pin, 16);
  void* tmp = nullptr; size_t tb = 0;
  cub::DeviceReduce::Sum(nullptr, tb, x.data(), fo, n, 0); cudaMalloc(&tmp, tb);
  for (int round = 0; round < 3; ++round) {
    const double floor_us = time_sync_call_us([&] { cub::DeviceReduce::Sum(tmp, tb, x.data(), fo, n, 0);
      cudaMemcpyAsync(pin, fo, 4, cudaMemcpyDeviceToHost, 0); cudaStreamSynchronize(0); });
    volatile float sink = 0;
    const double lib_us = time_sync_call_us([&] { sink = sink + ufunc::sum(x); });
    const double lib_async = time_host_us_per_call([&] { ufunc::sum(x, ufunc::out(r)); });
    const double cub_async = time_host_us_per_call([&] { cub::DeviceReduce::Sum(tmp, tb, x.data(), fo, n, 0); });
    const double dev_ms = time_device_ms([&] { ufunc::sum(x, ufunc::out(r)); });
    std::printf("to host: lib %.2f us, floor %.2f us (ratio %.3f) | host us per async call: lib %.2f, CUB %.2f | lib device %.2f us\n",
                lib_us, floor_us, lib_us / floor_us, lib_async, cub_async, 1e3 * dev_ms);
  }
  return 0;
}
