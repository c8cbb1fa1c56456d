// Probe (session 20, issue 40): the CUDA runtime calls a sharded whole sum makes
// against a plain one (one process, a one-device set), counted by an LD_PRELOAD
// shim (/tmp/shim/shim.cpp in the session; it wraps the runtime API functions
// with counters and timers): calls per sum and host microseconds inside each.
#include <ufunc/ufunc.hpp>
#include "bench_util.hpp"
#include <dlfcn.h>
#include <cstdio>
using namespace bench;

int main() {
  const auto dev = bench_device("probe_calls", 0);
  if (!dev) return 77;
  auto reset = reinterpret_cast<void (*)()>(dlsym(RTLD_DEFAULT, "shim_reset"));
  auto dump = reinterpret_cast<void (*)(long)>(dlsym(RTLD_DEFAULT, "shim_dump"));
  const ufunc::device_set one{0};
  const ufunc::index_t rows = (ufunc::index_t(1) << 30) / 1024;
  const auto tiny1 = ufunc::full<float>(ufunc::shape{1, 1}, 0.5f);
  const auto tinys = ufunc::full<float>(ufunc::shape{1, 1}, 0.5f, one);
  const auto y1 = ufunc::full<float>(ufunc::shape{rows, 1024}, 0.25f);
  const auto ys = ufunc::full<float>(ufunc::shape{rows, 1024}, 0.25f, one);
  double sink = 0;
  auto run = [&](const char* what, long n, const std::function<void()>& f) {
    for (int i = 0; i < 20; ++i) f();
    ufunc::synchronize();
    if (reset) reset();
    const auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < n; ++i) f();
    const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / n;
    std::printf("%s: %.2f us a call\n", what, us);
    if (dump) dump(n);
  };
  run("plain sum of one element", 2000, [&] { sink += ufunc::sum(tiny1); });
  run("sharded sum of one element (one device)", 2000, [&] { sink += ufunc::sum(tinys); });
  run("plain sum of 2^30 floats", 100, [&] { sink += ufunc::sum(y1); });
  run("sharded sum of 2^30 floats (one device)", 100, [&] { sink += ufunc::sum(ys); });
  if (sink == 1.5) std::puts("");
  return 0;
}
