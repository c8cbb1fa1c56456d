// Probe (session 20, issue 40): where a sharded whole sum's fixed cost goes, in one
// process on one GPU (no MPI): host time per call (sync included) of a plain sum of
// one element, the same sum of a sharded array over a one-device set, their parts
// (a sum into a device 0-d array, its copy to pageable and to pinned memory), and
// a 2^30-float sum plain and sharded.
#include <ufunc/ufunc.hpp>
#include "bench_util.hpp"
#include <cstdio>
using namespace bench;

int main() {
  const auto dev = bench_device("probe_fixed", 0);
  if (!dev) return 77;
  const ufunc::device_set one{0};
  const auto tiny1 = ufunc::full<float>(ufunc::shape{1, 1}, 0.5f);
  const auto tinys = ufunc::full<float>(ufunc::shape{1, 1}, 0.5f, one);
  auto o = ufunc::empty<float>(ufunc::shape{});
  float* pinned = nullptr;
  cudaMallocHost(&pinned, 64);
  double sink = 0;
  auto us = [&](const std::function<void()>& f) {
    for (int i = 0; i < 200; ++i) f();
    std::vector<double> t;
    for (int b = 0; b < 15; ++b) {
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < 200; ++i) f();
      t.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / 200);
    }
    return median(t);
  };
  for (int round = 0; round < 3; ++round) {
    const double a = us([&] { sink += ufunc::sum(tiny1); });
    const double b = us([&] { sink += ufunc::sum(tinys); });
    const double c = us([&] { ufunc::sum(tiny1, ufunc::out(o)); });
    const double d = us([&] {
      ufunc::sum(tiny1, ufunc::out(o));
      float v;
      cudaMemcpy(&v, o.data(), 4, cudaMemcpyDeviceToHost);
      sink += v;
    });
    const double e = us([&] {
      ufunc::sum(tiny1, ufunc::out(o));
      cudaMemcpyAsync(pinned, o.data(), 4, cudaMemcpyDeviceToHost, 0);
      cudaStreamSynchronize(0);
      sink += pinned[0];
    });
    const double f = us([&] {
      auto x = ufunc::empty<float>(ufunc::shape{});
      ufunc::sum(tiny1, ufunc::out(x));
      float v;
      cudaMemcpy(&v, x.data(), 4, cudaMemcpyDeviceToHost);
      sink += v;
    });
    std::printf("us/call: plain sum %.2f | sharded (1 device) %.2f | sum into out (async) %.2f | + pageable copy %.2f | + pinned copy %.2f | new 0-d array + out + copy %.2f\n",
                a, b, c, d, e, f);
  }
  {
    const ufunc::index_t rows = (ufunc::index_t(1) << 30) / 1024;
    const auto y1 = ufunc::full<float>(ufunc::shape{rows, 1024}, 0.25f);
    const auto ys = ufunc::full<float>(ufunc::shape{rows, 1024}, 0.25f, one);
    for (int round = 0; round < 3; ++round) {
      const auto t = time_interleaved_ms({[&] { sink += ufunc::sum(y1); }, [&] { sink += ufunc::sum(ys); }}, 15, 1);
      std::printf("2^30 floats: plain %.4f ms, sharded (1 device) %.4f ms, ratio %.4f\n", t[0], t[1], t[0] / t[1]);
    }
  }
  if (sink == 1.5) std::puts("");
  return 0;
}
