// Timing and reporting helpers shared by the benchmarks: device-event timing with
// warm-up and medians, host time per call, and a table of measured ratios next
// to their targets (reported, never asserted).
#pragma once

#include <ufunc/ufunc.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace {

struct event_pair {
  cudaEvent_t a, b;
  event_pair() {
    UFUNC_CUDA_CHECK(cudaEventCreate(&a));
    UFUNC_CUDA_CHECK(cudaEventCreate(&b));
  }
  ~event_pair() {
    cudaEventDestroy(a);
    cudaEventDestroy(b);
  }
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

/// Median device time of fn() in milliseconds (events on the default stream).
double time_device_ms(const std::function<void()>& fn, int warmup = 3, int reps = 25) {
  for (int i = 0; i < warmup; ++i) fn();
  UFUNC_CUDA_CHECK(cudaDeviceSynchronize());
  event_pair ev;
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    UFUNC_CUDA_CHECK(cudaEventRecord(ev.a));
    fn();
    UFUNC_CUDA_CHECK(cudaEventRecord(ev.b));
    UFUNC_CUDA_CHECK(cudaEventSynchronize(ev.b));
    float ms = 0;
    UFUNC_CUDA_CHECK(cudaEventElapsedTime(&ms, ev.a, ev.b));
    t.push_back(ms);
  }
  return median(t);
}

/// Median host time per call in microseconds over batches of `calls` back-to-back
/// asynchronous calls (the device drains between batches, outside the timing).
double time_host_us_per_call(const std::function<void()>& fn, int calls = 2000, int batches = 15) {
  for (int i = 0; i < calls; ++i) fn();
  UFUNC_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<double> t;
  for (int b = 0; b < batches; ++b) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) fn();
    const auto t1 = std::chrono::steady_clock::now();
    UFUNC_CUDA_CHECK(cudaDeviceSynchronize());
    t.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / calls);
  }
  return median(t);
}

struct row {
  std::string what;
  double value;
  std::string unit;
  std::string target;  // empty: reported only
  bool pass;
};
inline std::vector<row> rows;

void report(const std::string& what, double value, const std::string& unit, const std::string& target = "",
            bool pass = true) {
  rows.push_back({what, value, unit, target, pass});
  std::printf("%-62s %10.3f %-8s %s%s\n", what.c_str(), value, unit.c_str(), target.c_str(),
              target.empty() ? "" : (pass ? "  PASS" : "  FAIL"));
  std::fflush(stdout);
}


/// Prints the targets with their verdicts.
void summary(const char* name) {
  bool ok = true;
  std::puts("\nsummary (measured vs target):");
  for (const auto& r : rows)
    if (!r.target.empty()) {
      std::printf("  %-55s %8.3f  target %-8s %s\n", r.what.c_str(), r.value, r.target.c_str(), r.pass ? "PASS" : "FAIL");
      ok = ok && r.pass;
    }
  std::printf("%s: %s\n", name, ok ? "all targets met" : "SOME TARGETS MISSED");
}

}  // namespace
