// bench_sweep: every workload of bench/README.md over its sizes, each
// implementation checked then timed, one CSV row per implementation and size.
//   usage: bench_sweep [--quick] [--csv file] [--only w1,w2,...]
//   workloads: sum elementwise overhead matmul transpose axis lazy pairwise host_memory
// Exits 1 when a result check failed (its rows are not written), 0 otherwise;
// speed is reported, never asserted.
#include "sweep.hpp"

#include <cstring>
#include <sstream>

namespace sweep {

std::vector<float> uniform(std::size_t n, std::uint64_t seed, float lo, float hi) {
  std::vector<float> v(n);
  std::uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
  for (auto& x : v) {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    x = lo + (hi - lo) * static_cast<float>(z >> 40) * (1.0f / 16777216.0f);
  }
  return v;
}

std::string shape_str(std::initializer_list<long long> dims) {
  std::string s;
  for (long long d : dims) s += (s.empty() ? "" : "x") + std::to_string(d);
  return s;
}

std::vector<int> exponents(int lo, int hi, int step) {
  std::vector<int> e;
  for (int k = lo; k < hi; k += step) e.push_back(k);
  e.push_back(hi);
  return e;
}

bool all_close(sweep_recorder& rec, const float* got, const float* want, std::size_t n, const std::string& what) {
  for (std::size_t i = 0; i < n; ++i)
    if (!(std::fabs(got[i] - want[i]) <= 1e-5 * std::fabs(want[i]) + 2e-6)) {
      std::fprintf(stderr, "  [%zu] %.9g vs reference %.9g\n", i, got[i], want[i]);
      return rec.check(false, what);
    }
  return rec.check(true, what);
}

bool close(double got, double want, double rel, double scale, double abs_tol) {
  const bool ok = std::fabs(got - want) <= rel * scale + abs_tol;
  if (!ok) std::fprintf(stderr, "  %.9g vs reference %.9g (tolerance %.3g)\n", got, want, rel * scale + abs_tol);
  return ok;
}

}  // namespace sweep

int main(int argc, char** argv) {
  using namespace sweep;
  bool quick = false;
  std::string csv = "sweep.csv", only;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) quick = true;
    else if (!std::strcmp(argv[i], "--csv") && i + 1 < argc) csv = argv[++i];
    else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
    else {
      std::fprintf(stderr, "usage: %s [--quick] [--csv file] [--only sum,elementwise,overhead,matmul,transpose,axis,lazy,pairwise,host_memory]\n",
                   argv[0]);
      return 2;
    }
  }
  const bool on_gpu = ufunc::cuda_backend;
  if (on_gpu && !ufunc::device_available()) {
    std::printf("bench_sweep: no CUDA device\n");
    return 77;
  }
  config cfg;
  cfg.quick = quick;
  if (on_gpu) {
    cfg.peak_gbs = ufunc::devices()[0].peak_bandwidth() / 1e9;
    cfg.fp32_tflops = fp32_peak_tflops();
  }
  if (quick) {
    cfg.lo = 10, cfg.hi = 18;
    cfg.device = {10, 3, 5, 2};
    cfg.host = {10, 3, 5, 1};
    cfg.slow = {10, 3, 3, 1};
  } else {
    cfg.device = {100, 5, 20, 10};
    cfg.host = {100, 3, 10, 1};
    cfg.slow = {100, 3, 3, 1, false};
    cfg.host_hi = 25;
  }
  sweep_recorder rec(csv, run_info::current());
  context c{rec, cfg, on_gpu ? "GPU" : "device=host"};
  std::printf("bench_sweep: %s mode, device: %s, CUDA %s, commit %s\n", quick ? "quick" : "full",
              rec.info().device.c_str(), rec.info().cuda.c_str(), rec.info().commit.c_str());
  if (on_gpu)
    std::printf("limits: peak bandwidth %.0f GB/s, FP32 peak %.1f TFLOP/s, L2 %.0f MiB\n", cfg.peak_gbs,
                cfg.fp32_tflops, l2_bytes() / (1 << 20));
  auto wanted = [&](const char* w) { return only.empty() || ("," + only + ",").find(std::string(",") + w + ",") != std::string::npos; };
  const auto t0 = std::chrono::steady_clock::now();
  if (wanted("sum")) sum_workloads(c);
  if (wanted("elementwise")) elementwise_workloads(c);
  if (wanted("overhead")) overhead_workload(c);
  if (wanted("matmul")) matmul_workload(c);
  if (wanted("transpose")) transpose_workload(c);
  if (wanted("axis")) axis_workload(c);
  if (wanted("lazy")) lazy_workloads(c);
  if (wanted("pairwise")) pairwise_workloads(c);
  if (wanted("host_memory")) host_memory_workload(c);
  rec.end_line();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("bench_sweep: %d rows in %s, %.1f s, %d check%s failed\n", rec.rows(), csv.c_str(), s, rec.failures(),
              rec.failures() == 1 ? "" : "s");
  return rec.failures() ? 1 : 0;
}
