// The one harness of the benchmarks (bench_core, bench_reduce, bench_linalg,
// bench_lazy and the sweep): the preamble (device check and "device:" line);
// timing by the target's own clock (device events for device work, the host
// clock for host work) with warm-up and medians; several implementations
// measured interleaved (reference, candidate, reference, ...) so that drift of a
// shared machine hits all alike; host time per call; how many input copies to
// rotate through so that L2 residency does not flatter small sizes; the CSV of a
// sweep (schema in bench/README.md) with a progress line on stderr; and a table
// of measured ratios next to their targets (reported, never asserted; written to
// $BENCH_TARGETS_CSV too when that is set), bandwidth targets among them held
// against a reference pass over the same bytes (bandwidth_target).
// Compiles in both backends' builds (host C++ or nvcc); CUDA calls are guarded.
#pragma once

#include <ufunc/ufunc.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>  // isatty: the progress line rewrites itself only on a terminal

// Named (not anonymous): the sweep's translation units share these types.
namespace bench {

/// What a benchmark's "device:" line shows besides the name, the SM count and
/// the peak bandwidth (bench_device's `shown`, or-ed).
enum device_line : unsigned {
  with_cc_and_memory = 1,  ///< compute capability and GiB of memory
  with_memory_clock = 2,   ///< the peak to 0.1 GB/s and what it is computed from (else to 1 GB/s)
};

/// The benchmark preamble: the first CUDA device, after printing its "device:"
/// line and a blank line; none, after "<bench>: no CUDA device", when there is
/// none (main then returns 77, which ctest reports as skipped).
inline std::optional<ufunc::device_info> bench_device(const char* bench, unsigned shown) {
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

/// Times what runs between two marks by Target's clock: device events on the
/// default stream for the device target, the host clock for `target::host`.
template <class Target>
class clock_timer {
 public:
  /// Time of one fn() in milliseconds (waits for it).
  template <class Fn>
  double time_ms(Fn&& fn) {
    t_.start();
    fn();
    t_.stop();
    return t_.elapsed_ms();
  }

 private:
  ufunc::basic_timer<Target> t_;
};
/// Device-event timer (the host clock on the host backend, whose work is synchronous).
using event_timer = clock_timer<ufunc::target::device>;

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

/// Median device time of fn() in milliseconds over `reps` calls, after `warmup`
/// calls and a device synchronize.
inline double time_device_ms(const std::function<void()>& fn, int warmup = 3, int reps = 25) {
  for (int i = 0; i < warmup; ++i) fn();
  ufunc::synchronize();
  event_timer ev;
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) t.push_back(ev.time_ms(fn));
  return median(t);
}

/// Median device time of fn() in milliseconds, the repetition count adapted so a
/// measurement takes about `budget_ms` (at least 3, at most `max_reps`): one
/// warm-up call (module load, pool growth), one timed call to size the count.
inline double time_device_ms_budget(const std::function<void()>& fn, double budget_ms = 300, int max_reps = 30) {
  event_timer ev;
  fn();
  const double first = ev.time_ms(fn);
  const int reps = std::max(3, std::min(max_reps, static_cast<int>(budget_ms / std::max(first, 1e-3))));
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) t.push_back(ev.time_ms(fn));
  return median(t);
}

/// Median device times (ms) of fns[0], fns[1], ... measured in alternation
/// (fns[0], fns[1], ..., fns[0], ...), `reps` each after a warm-up of two calls of
/// each, each timing covering `batch` back-to-back calls: drift of a shared
/// machine then hits all alike. Returns one median per function, in order.
inline std::vector<double> time_interleaved_ms(const std::vector<std::function<void()>>& fns, int reps, int batch) {
  for (int i = 0; i < 2; ++i)
    for (const auto& fn : fns) fn();
  ufunc::synchronize();
  event_timer ev;
  std::vector<std::vector<double>> t(fns.size());
  for (int r = 0; r < reps; ++r)
    for (std::size_t k = 0; k < fns.size(); ++k)
      t[k].push_back(ev.time_ms([&] {
                       for (int i = 0; i < batch; ++i) fns[k]();
                     }) /
                     batch);
  std::vector<double> out;
  for (auto& v : t) out.push_back(median(v));
  return out;
}

/// The same for a reference and a candidate. Returns {reference, candidate}.
inline std::pair<double, double> time_interleaved_ms(const std::function<void()>& ref, const std::function<void()>& cand,
                                              int reps = 15, int batch = 5) {
  const auto t = time_interleaved_ms({ref, cand}, reps, batch);
  return {t[0], t[1]};
}

/// Median host time per call in microseconds over batches of `calls` back-to-back
/// asynchronous calls (the device drains between batches, outside the timing).
inline double time_host_us_per_call(const std::function<void()>& fn, int calls = 2000, int batches = 15) {
  for (int i = 0; i < calls; ++i) fn();
  ufunc::synchronize();
  std::vector<double> t;
  for (int b = 0; b < batches; ++b) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) fn();
    const auto t1 = std::chrono::steady_clock::now();
    ufunc::synchronize();
    t.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / calls);
  }
  return median(t);
}

// ---- sweeps: several implementations, measured alike ---------------------------

/// A median time per call and how many timings it is the median of.
struct timing {
  double ms = 0;
  int reps = 0;
};

/// How long a sweep's measurements run: repetitions are sized so one
/// measurement takes about `budget_ms` (at least `min_reps`, at most `max_reps`
/// timings), each timing covers `batch` back-to-back calls. Without `warm_up`
/// the sizing round is the first call (for calls of seconds that the caller has
/// already run once, e.g. a host loop that made the reference).
struct budget {
  double budget_ms = 200;
  int min_reps = 3;
  int max_reps = 30;
  int batch = 1;
  bool warm_up = true;
};

/// Median time per call of each fns[i] by Target's clock, measured interleaved:
/// one warm-up call of each (unless !b.warm_up), then rounds of (fns[0], fns[1], ...), each timing a
/// batch of `b.batch` back-to-back calls. A single function is the plain case.
/// Returns one timing per function, in order.
template <class Target>
std::vector<timing> measure_interleaved(const std::vector<std::function<void()>>& fns, const budget& b) {
  clock_timer<Target> clk;
  auto batched = [&](const std::function<void()>& fn) {
    return clk.time_ms([&] {
             for (int i = 0; i < b.batch; ++i) fn();
           }) /
           b.batch;
  };
  double round_ms = 0;  // the warm-up round sizes the repetition count
  for (const auto& fn : fns) {
    if (b.warm_up) fn();
    round_ms += batched(fn);
  }
  const int reps = std::max(b.min_reps, std::min(b.max_reps, static_cast<int>(b.budget_ms / std::max(round_ms, 1e-3))));
  std::vector<std::vector<double>> t(fns.size());
  for (int r = 0; r < reps; ++r)
    for (std::size_t i = 0; i < fns.size(); ++i) t[i].push_back(batched(fns[i]));
  std::vector<timing> out;
  for (auto& v : t) out.push_back({median(v), reps});
  return out;
}

/// The same for one function.
template <class Target>
timing measure(const std::function<void()>& fn, const budget& b) {
  return measure_interleaved<Target>({fn}, b)[0];
}

/// Median host time per call in seconds of each fns[i] (asynchronous calls),
/// interleaved: rounds of (batch of `calls` calls of fns[0], device drained,
/// batch of fns[1], ...), the drain outside the timing. Used for per-call
/// overhead against a raw launch, which drifts with the machine by 10-30%.
inline std::vector<double> host_seconds_per_call_interleaved(const std::vector<std::function<void()>>& fns, int calls,
                                                      int rounds) {
  for (const auto& fn : fns)
    for (int i = 0; i < calls; ++i) fn();
  ufunc::synchronize();
  std::vector<std::vector<double>> t(fns.size());
  for (int r = 0; r < rounds; ++r)
    for (std::size_t k = 0; k < fns.size(); ++k) {
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < calls; ++i) fns[k]();
      const auto t1 = std::chrono::steady_clock::now();
      ufunc::synchronize();
      t[k].push_back(std::chrono::duration<double>(t1 - t0).count() / calls);
    }
  std::vector<double> out;
  for (auto& v : t) out.push_back(median(v));
  return out;
}

/// Bytes of the device's L2 cache (32 MiB assumed on the host backend, a
/// typical last-level cache).
inline double l2_bytes() {
#if defined(UFUNC_BACKEND_CUDA)
  int v = 0;
  if (cudaDeviceGetAttribute(&v, cudaDevAttrL2CacheSize, 0) == cudaSuccess && v > 0) return v;
  (void)cudaGetLastError();
#endif
  return 32.0 * (1 << 20);
}

/// How many copies of a working set of `bytes` to rotate through so that
/// together they exceed 3 x L2 (at most `cap`): a small input timed again and
/// again would otherwise be read from L2, not from memory.
inline int rotation_copies(double bytes, int cap = 64) {
  return std::max(1, std::min(cap, static_cast<int>(std::ceil(3 * l2_bytes() / std::max(bytes, 1.0)))));
}

/// FP32 peak of the device in TFLOP/s: SMs x FP32 lanes per SM x 2 (FMA) x
/// the SM clock; 0 when unknown (host backend).
inline double fp32_peak_tflops() {
#if defined(UFUNC_BACKEND_CUDA)
  const auto devs = ufunc::devices();
  if (devs.empty()) return 0;
  int khz = 0;
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  const auto& d = devs[0];
  // FP32 lanes per SM: 64 on sm_60/70/80, 128 on sm_61/75 onwards (86, 89, 90, 100).
  const int lanes = (d.cc_major == 8 && d.cc_minor == 0) || d.cc_major == 7 || (d.cc_major == 6 && d.cc_minor == 0)
                        ? 64
                        : 128;
  return double(d.multiprocessors) * lanes * 2.0 * khz * 1e3 / 1e12;
#else
  return 0;
#endif
}

/// What every CSV row repeats: the device, the CUDA runtime, the commit
/// ($BENCH_COMMIT, set by scripts/bench_all.sh) and the date (UTC).
struct run_info {
  std::string device, cuda, commit, date;
  static run_info current() {
    run_info r;
    const auto devs = ufunc::devices();
    if (!devs.empty()) {
      r.device = devs[0].name;
    } else {
      r.device = "host backend";
    }
#if defined(UFUNC_BACKEND_CUDA)
    int v = 0;
    if (cudaRuntimeGetVersion(&v) == cudaSuccess)
      r.cuda = std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
#endif
    if (r.cuda.empty()) r.cuda = "none";
    const char* c = std::getenv("BENCH_COMMIT");
    r.commit = c && *c ? c : "unknown";
    char buf[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    r.date = buf;
    return r;
  }
};

/// A CSV field, quoted when it holds a comma or a quote.
inline std::string csv_field(const std::string& v) {
  if (v.find_first_of(",\"\n") == std::string::npos) return v;
  std::string q = "\"";
  for (char ch : v) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return q + "\"";
}
inline std::string csv_number(double v) {
  if (!(v == v) || v == 0) return v == 0 ? "0" : "";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

/// The header of a sweep's CSV (bench/README.md documents each column).
inline constexpr const char* sweep_csv_header =
    "workload,implementation,shape,dtype,n,median_s,reps,throughput,unit,limit,limit_source,ratio_to_limit,"
    "device,cuda,commit,date";

/// Writes a sweep's rows (one per implementation and size) to its CSV, checks
/// results before they are timed, and shows progress on stderr.
class sweep_recorder {
 public:
  sweep_recorder(const std::string& path, run_info info) : info_(std::move(info)), tty_(isatty(2)) {
    f_ = std::fopen(path.c_str(), "w");
    if (!f_) {
      std::fprintf(stderr, "cannot write %s\n", path.c_str());
      std::exit(2);
    }
    std::fprintf(f_, "%s\n", sweep_csv_header);
  }
  ~sweep_recorder() {
    if (f_) std::fclose(f_);
  }
  sweep_recorder(const sweep_recorder&) = delete;
  sweep_recorder& operator=(const sweep_recorder&) = delete;

  const run_info& info() const { return info_; }

  /// One measurement. `amount` is what one call moves or computes in `unit`'s
  /// base (bytes for GB/s, flops for TFLOP/s, pairs for pairs/s, 1 for
  /// calls/s); `limit` is the hardware limit (or reference) in `unit`, 0 for
  /// none.
  void row(const std::string& workload, const std::string& impl, const std::string& shape, const std::string& dtype,
           double n, const timing& t, double amount, const std::string& unit, double limit,
           const std::string& limit_source) {
    const double s = t.ms * 1e-3;
    const double scale = unit == "GB/s" ? 1e9 : unit == "TFLOP/s" ? 1e12 : 1;
    const double thr = s > 0 ? amount / s / scale : 0;
    std::fprintf(f_, "%s,%s,%s,%s,%s,%s,%d,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", csv_field(workload).c_str(),
                 csv_field(impl).c_str(), csv_field(shape).c_str(), dtype.c_str(), csv_number(n).c_str(),
                 csv_number(s).c_str(), t.reps, csv_number(thr).c_str(), unit.c_str(),
                 limit > 0 ? csv_number(limit).c_str() : "", csv_field(limit > 0 ? limit_source : "").c_str(),
                 limit > 0 ? csv_number(thr / limit).c_str() : "", csv_field(info_.device).c_str(),
                 info_.cuda.c_str(), csv_field(info_.commit).c_str(), info_.date.c_str());
    std::fflush(f_);
    ++rows_;
  }

  /// Records a check of a result (before it is timed); false when it failed.
  bool check(bool ok, const std::string& what) {
    if (!ok) {
      ++failures_;
      end_line();
      std::fprintf(stderr, "CHECK FAILED: %s\n", what.c_str());
    }
    return ok;
  }

  /// The progress line: step count, seconds since the start, what runs now
  /// (rewritten in place on a terminal, one line per call otherwise).
  void progress(const std::string& what) {
    ++steps_;
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    std::fprintf(stderr, tty_ ? "\r[%4d %6.1f s] %-70.70s" : "[%4d %6.1f s] %s\n", steps_, s, what.c_str());
    std::fflush(stderr);
    open_line_ = tty_;
  }
  void end_line() {
    if (open_line_) std::fputc('\n', stderr);
    open_line_ = false;
  }

  int failures() const { return failures_; }
  int rows() const { return rows_; }

 private:
  std::FILE* f_ = nullptr;
  run_info info_;
  bool tty_ = false, open_line_ = false;
  int steps_ = 0, failures_ = 0, rows_ = 0;
  std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
};

// ---- targets table -------------------------------------------------------------

struct row {
  std::string what;
  double value;
  std::string unit;
  std::string target;  // empty: reported only
  bool pass;
  double of_peak = 0;            // bandwidth targets: the call's bandwidth / peak (information; 0: none)
  double reference_of_peak = 0;  // and the reference pass's
};
inline std::vector<row> rows;

/// Appends the rows with a target to $BENCH_TARGETS_CSV (when set):
/// program,measure,value,unit,target,verdict,device,cuda,commit,date,of_peak,reference_of_peak.
inline void append_targets_csv(const char* program) {
  const char* path = std::getenv("BENCH_TARGETS_CSV");
  if (!path || !*path) return;
  std::FILE* f = std::fopen(path, "a");
  if (!f) return;
  std::fseek(f, 0, SEEK_END);
  if (std::ftell(f) == 0)
    std::fprintf(f, "program,measure,value,unit,target,verdict,device,cuda,commit,date,of_peak,reference_of_peak\n");
  const run_info info = run_info::current();
  auto info_number = [](double v) { return v > 0 ? csv_number(v) : std::string(); };
  for (const auto& r : rows)
    if (!r.target.empty())
      std::fprintf(f, "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", program, csv_field(r.what).c_str(),
                   csv_number(r.value).c_str(), r.unit.c_str(), csv_field(r.target).c_str(), r.pass ? "met" : "missed",
                   csv_field(info.device).c_str(), info.cuda.c_str(), csv_field(info.commit).c_str(),
                   info.date.c_str(), info_number(r.of_peak).c_str(), info_number(r.reference_of_peak).c_str());
  std::fclose(f);
}

inline void report(const std::string& what, double value, const std::string& unit, const std::string& target = "",
            bool pass = true) {
  rows.push_back({what, value, unit, target, pass});
  std::printf("%-62s %10.3f %-8s %s%s\n", what.c_str(), value, unit.c_str(), target.c_str(),
              target.empty() ? "" : (pass ? "  PASS" : "  FAIL"));
  std::fflush(stdout);
}

// ---- bandwidth targets ---------------------------------------------------------
// A bandwidth target was first set as a fraction of the datasheet peak (memory
// clock x bus x 2) on an H100, where a device copy reaches about 0.88 of it; an
// H200's reaches about 0.86, so the same code missed there what it met on the
// H100. Each bandwidth target is now the call's speed over a reference pass
// moving the same bytes (bench_copy.cuh: a device copy for calls that read and
// write, a read kernel for reductions), timed in the same run, interleaved with
// the call in the call's own timing style. Its threshold is the old one divided
// by the reference's fraction of peak on the H100 (bench/NOTES.md), rounded up
// to 0.001, so a verdict on the H100 is the one the old target gave; bandwidth /
// peak stays printed as information. bench/README.md, "Bandwidth targets",
// lists every conversion.

/// The H100's reference fractions of peak the thresholds are derived from
/// (NVIDIA H100 80GB HBM3, bench/NOTES.md and bench/results/2026-11-25).
namespace h100 {
/// cudaMemcpyAsync of 512 MiB (1 GiB moved): 0.875-0.883 in bench_core and bench_half runs.
inline constexpr double copy_1gib = 0.878;
/// cudaMemcpyAsync of 256 MiB (8192^2 float32; 512 MiB moved): 0.862-0.871 (bench_lazy, bench_linalg).
inline constexpr double copy_512mib = 0.866;
/// A copy moving 256 MiB: not measured there; a little under the larger copies.
inline constexpr double copy_256mib = 0.86;
/// A read of 2^27 float32 (512 MiB) or more: CUB's whole-array sum, 0.877-0.901.
inline constexpr double read_512mib = 0.895;
/// A read of 8192^2 float32 (256 MiB): the read kernel itself, 0.887-0.898 over six
/// bench_reduce runs in three H100 leases (2026-11-26; CUB's whole-matrix sum 0.868-0.877).
inline constexpr double read_256mib = 0.894;
}  // namespace h100

/// A bandwidth target held against a reference pass over the same bytes.
struct bandwidth_target {
  double of_peak;         ///< the target as first set: a fraction of peak on the H100
  double h100_reference;  ///< the reference's fraction of peak on the H100 (namespace h100)
  /// The threshold on (reference time / call time): of_peak / h100_reference,
  /// rounded up to the 0.001 it is printed with (never easier than the old target).
  double threshold() const { return std::ceil(of_peak / h100_reference * 1000 - 1e-9) / 1000; }
};

/// Reports a bandwidth target: `what` with `ref_name` appended, valued at the
/// call's speed over the reference's (ref_ms / ms; both move `bytes`), held
/// against t.threshold(); then, as information, the call's and the reference's
/// bandwidth / peak (`peak` in bytes/s). Preconditions: ms, ref_ms > 0.
inline void report_bandwidth(const std::string& what, const std::string& ref_name, double bytes, double ms,
                             double ref_ms, double peak, const bandwidth_target& t) {
  const double ratio = ref_ms / ms, thr = t.threshold();
  char target[32];
  std::snprintf(target, sizeof target, ">= %.3f", thr);
  report(what + " / " + ref_name + " (same bytes)", ratio, "ratio", target, ratio >= thr);
  rows.back().of_peak = bytes / ms / 1e-3 / peak;
  rows.back().reference_of_peak = bytes / ref_ms / 1e-3 / peak;
  char was[64];
  std::snprintf(was, sizeof was, "  its bandwidth / peak (was the target: >= %.2f)", t.of_peak);
  report(was, rows.back().of_peak, "ratio");
  report("  " + ref_name + " / peak (H100: " + std::to_string(t.h100_reference).substr(0, 5) + ")",
         bytes / ref_ms / 1e-3 / peak, "ratio");
}

/// Prints the targets with their verdicts.
inline void summary(const char* name) {
  bool ok = true;
  std::puts("\nsummary (measured vs target):");
  for (const auto& r : rows)
    if (!r.target.empty()) {
      std::printf("  %-55s %8.3f  target %-8s %s\n", r.what.c_str(), r.value, r.target.c_str(), r.pass ? "PASS" : "FAIL");
      ok = ok && r.pass;
    }
  std::printf("%s: %s\n", name, ok ? "all targets met" : "SOME TARGETS MISSED");
  append_targets_csv(name);
}

}  // namespace bench

using namespace bench;  // NOLINT: benchmark programs use the harness unqualified
