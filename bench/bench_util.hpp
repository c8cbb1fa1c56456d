// Timing and reporting helpers shared by the benchmarks: the preamble (device
// check and "device:" line), device-event timing with warm-up and medians, host
// time per call, and a table of measured ratios next to their targets (reported,
// never asserted).
#pragma once

#include <ufunc/ufunc.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace {

/// What a benchmark's "device:" line shows besides the name, the SM count and
/// the peak bandwidth (bench_device's `shown`, or-ed).
enum device_line : unsigned {
  with_cc_and_memory = 1,  ///< compute capability and GiB of memory
  with_memory_clock = 2,   ///< the peak to 0.1 GB/s and what it is computed from (else to 1 GB/s)
};

/// The benchmark preamble: the first CUDA device, after printing its "device:"
/// line and a blank line; none, after "<bench>: no CUDA device", when there is
/// none (main then returns 77, which ctest reports as skipped).
std::optional<ufunc::device_info> bench_device(const char* bench, unsigned shown) {
  const auto devs = ufunc::devices();
  if (devs.empty()) {
    std::printf("%s: no CUDA device\n", bench);
    return std::nullopt;
  }
  const auto& dev = devs[0];
  const double peak = dev.peak_bandwidth();  // bytes/s
  std::printf("device: %s, %d SMs", dev.name.c_str(), dev.multiprocessors);
  if (shown & with_cc_and_memory)
    std::printf(", cc %d.%d, %.1f GiB", dev.cc_major, dev.cc_minor, dev.total_memory / double(1u << 30));
  if (shown & with_memory_clock)
    std::printf(", peak bandwidth %.1f GB/s (clock %d kHz x %d bit x 2)\n\n", peak / 1e9, dev.memory_clock_khz,
                dev.memory_bus_bits);
  else
    std::printf(", peak bandwidth %.0f GB/s\n\n", peak / 1e9);
  return dev;
}

/// Two events on the default stream: the device time of what runs between them.
class event_timer {
 public:
  event_timer() {
    UFUNC_CUDA_CHECK(cudaEventCreate(&a_));
    UFUNC_CUDA_CHECK(cudaEventCreate(&b_));
  }
  ~event_timer() {
    cudaEventDestroy(a_);
    cudaEventDestroy(b_);
  }
  event_timer(const event_timer&) = delete;
  event_timer& operator=(const event_timer&) = delete;

  /// Device time of one fn() in milliseconds (waits for it).
  template <class Fn>
  float time_ms(Fn&& fn) {
    UFUNC_CUDA_CHECK(cudaEventRecord(a_));
    fn();
    UFUNC_CUDA_CHECK(cudaEventRecord(b_));
    UFUNC_CUDA_CHECK(cudaEventSynchronize(b_));
    float ms = 0;
    UFUNC_CUDA_CHECK(cudaEventElapsedTime(&ms, a_, b_));
    return ms;
  }

 private:
  cudaEvent_t a_, b_;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

/// Median device time of fn() in milliseconds over `reps` calls, after `warmup`
/// calls and a device synchronize.
double time_device_ms(const std::function<void()>& fn, int warmup = 3, int reps = 25) {
  for (int i = 0; i < warmup; ++i) fn();
  UFUNC_CUDA_CHECK(cudaDeviceSynchronize());
  event_timer ev;
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) t.push_back(ev.time_ms(fn));
  return median(t);
}

/// Median device time of fn() in milliseconds, the repetition count adapted so a
/// measurement takes about `budget_ms` (at least 3, at most `max_reps`): one
/// warm-up call (module load, pool growth), one timed call to size the count.
double time_device_ms_budget(const std::function<void()>& fn, double budget_ms = 300, int max_reps = 30) {
  event_timer ev;
  fn();
  const float first = ev.time_ms(fn);
  const int reps = std::max(3, std::min(max_reps, static_cast<int>(budget_ms / std::max(first, 1e-3f))));
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) t.push_back(ev.time_ms(fn));
  return median(t);
}

/// Median device times (ms) of a reference and a candidate measured in
/// alternation (reference, candidate, reference, ...), `reps` each after a
/// warm-up of both, each timing covering `batch` back-to-back calls: drift of a
/// shared machine then hits both alike. Returns {reference, candidate}.
std::pair<double, double> time_interleaved_ms(const std::function<void()>& ref, const std::function<void()>& cand,
                                              int reps = 15, int batch = 5) {
  for (int i = 0; i < 2; ++i) ref(), cand();
  UFUNC_CUDA_CHECK(cudaDeviceSynchronize());
  event_timer ev;
  std::vector<double> a, b;
  auto batched = [&](const std::function<void()>& fn) {
    return ev.time_ms([&] {
             for (int i = 0; i < batch; ++i) fn();
           }) /
           batch;
  };
  for (int i = 0; i < reps; ++i) {
    a.push_back(batched(ref));
    b.push_back(batched(cand));
  }
  return {median(a), median(b)};
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
