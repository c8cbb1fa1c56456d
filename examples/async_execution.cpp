// async_execution: kernel launches return before the kernel has run, so timing
// them takes care. The seeds' lesson: always synchronise when benchmarking.
//
// Three ways to time the same kernel (out = x + y over 2^24 floats):
//   (a) the host clock around the launch alone: only what it costs to enqueue the
//       kernel; the kernel is still running when the clock stops;
//   (b) the host clock around the launch and a synchronize: the kernel's time,
//       plus launch and synchronisation overhead;
//   (c) ufunc::timer, events recorded on the stream before and after the kernel:
//       the kernel's time by the GPU's own clock, with no host overhead in it.
// Then several independent kernels, each too small to fill the GPU (a few
// blocks of compute-heavy work), run all on one stream and then spread over two
// streams: on two streams they can run side by side, so the same work can take
// less time. The numbers are printed, not checked (they depend on the machine);
// the results of every kernel are checked against a serial computation.
//
// On the host backend everything is synchronous: (a) already includes the whole
// computation, and the two streams cannot overlap.
#include <ufunc/ufunc.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

namespace {

using clock_type = std::chrono::steady_clock;
double ms_since(clock_type::time_point t0) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

/// A few hundred dependent multiply-adds per element: compute-bound work.
struct iterate {
  ufunc::array_view<float> v;
  int steps;
  UFUNC_HD void operator()(std::size_t i) const {
    float x = v[static_cast<ufunc::index_t>(i)];
    for (int k = 0; k < steps; ++k) x = x * 0.999f + 0.001f;
    v[static_cast<ufunc::index_t>(i)] = x;
  }
};

}  // namespace

int main() {
  if (ufunc::cuda_backend && !ufunc::device_available()) {
    std::puts("async_execution: no CUDA device, skipped");
    return 77;
  }
  bool ok = true;
  std::printf("target: %s\n", ufunc::target::device::name);

  // ---- one kernel, timed three ways --------------------------------------------
  const std::size_t n = std::size_t(1) << 24;
  std::vector<float> hx(n), hy(n);
  for (std::size_t i = 0; i < n; ++i) {
    hx[i] = static_cast<float>(i % 1000);
    hy[i] = 0.5f * static_cast<float>(i % 777);
  }
  ufunc::stream s;
  auto x = ufunc::to_device(hx, s), y = ufunc::to_device(hy, s);
  auto out = ufunc::empty_like(x, s);
  auto xv = x.view(), yv = y.view(), ov = out.view();
  auto add = [=] UFUNC_HD (std::size_t i) { ov[i] = xv[i] + yv[i]; };

  ufunc::parallel_for(n, add, s);  // warm-up: module load, occupancy query, first-touch
  s.synchronize();

  auto t0 = clock_type::now();
  ufunc::parallel_for(n, add, s);
  const double launch_only = ms_since(t0);
  s.synchronize();

  t0 = clock_type::now();
  ufunc::parallel_for(n, add, s);
  s.synchronize();
  const double with_sync = ms_since(t0);

  ufunc::timer t;
  t.start(s);
  ufunc::parallel_for(n, add, s);
  t.stop(s);
  const double by_events = t.elapsed_ms();

  const bool gpu = ufunc::cuda_backend;
  std::printf("\none kernel, out = x + y over %zu floats (%.0f MB moved):\n", n, 3.0 * n * sizeof(float) / 1e6);
  std::printf("  (a) host clock, launch only:          %8.3f ms  <- %s\n", launch_only,
              gpu ? "the time to enqueue; the kernel had not finished"
                  : "host backend: the call returns when done, so this is the whole run");
  std::printf("  (b) host clock, launch + synchronize: %8.3f ms  <- %s\n", with_sync,
              gpu ? "the kernel plus launch and sync overhead" : "the same run (synchronize has nothing to wait for)");
  std::printf("  (c) ufunc::timer (events):            %8.3f ms  <- %s (%.1f GB/s)\n", by_events,
              gpu ? "the kernel alone, by the GPU's clock" : "the run, by the host clock", 3.0 * n * sizeof(float) / (by_events * 1e6));
  const auto r = out.to_host(s);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < n; ++i) bad += r[i] != hx[i] + hy[i];
  std::printf("  result: %zu mismatches\n", bad);
  ok &= bad == 0;

  // ---- several small kernels: one stream, then two ---------------------------------
  const int kernels = 8, steps = 4000;
  const std::size_t m = 8 * 256;  // 8 blocks of 256 threads each: a small part of a GPU
  const ufunc::launch_config small{8, 256};
  std::vector<float> h0(m);
  for (std::size_t i = 0; i < m; ++i) h0[i] = static_cast<float>(i % 100);
  ufunc::stream s1(ufunc::stream::non_blocking), s2(ufunc::stream::non_blocking);
  std::vector<ufunc::array<float>> bufs;
  for (int k = 0; k < kernels; ++k) bufs.push_back(ufunc::to_device(h0, s1));
  s1.synchronize();
  auto run = [&](bool two_streams) {
    for (int k = 0; k < kernels; ++k)
      ufunc::parallel_for(m, iterate{bufs[static_cast<std::size_t>(k)].view(), steps}, small,
                          two_streams && k % 2 ? s2 : s1);
  };
  run(false);  // warm-up
  s1.synchronize();

  t0 = clock_type::now();
  run(false);
  s1.synchronize();
  const double one_stream = ms_since(t0);
  t0 = clock_type::now();
  run(true);
  s1.synchronize();
  s2.synchronize();
  const double two_streams = ms_since(t0);
  std::printf("\n%d independent kernels of %zu threads, %d steps each (host clock, synchronized):\n", kernels, m, steps);
  std::printf("  all on one stream:      %8.3f ms  <- one after the other\n", one_stream);
  std::printf("  alternating two streams: %7.3f ms  <- %s\n", two_streams,
              ufunc::cuda_backend ? "kernels on different streams may run at the same time"
                                  : "host backend: synchronous, no overlap");
  std::printf("  ratio one/two: %.2f\n", one_stream / two_streams);

  // Every buffer went through the iteration three times (warm-up and two runs).
  float want_base[100];
  for (int b = 0; b < 100; ++b) {
    float v = static_cast<float>(b);
    for (int rep = 0; rep < 3; ++rep)
      for (int k = 0; k < steps; ++k) v = v * 0.999f + 0.001f;
    want_base[b] = v;
  }
  std::size_t bad2 = 0;
  for (int k = 0; k < kernels; ++k) {
    const auto hb = bufs[static_cast<std::size_t>(k)].to_host(k % 2 ? s2 : s1);
    for (std::size_t i = 0; i < m; ++i) {
      // The device may fuse x * 0.999f + 0.001f into one FMA; allow for that rounding.
      const float w = want_base[i % 100];
      bad2 += !(std::fabs(hb[i] - w) <= 1e-4f * std::fmax(1.0f, std::fabs(w)));
    }
  }
  std::printf("  results: %zu mismatches\n", bad2);
  ok &= bad2 == 0;

  std::puts(ok ? "async_execution: ok" : "async_execution: FAILED");
  return ok ? 0 : 1;
}
