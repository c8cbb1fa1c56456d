// The sweep program's shared pieces: its configuration (sizes and budgets of the
// quick and full modes, the limits rows are held against), input data, and the
// workloads it runs (one translation unit each, so a build compiles them in
// parallel). Every workload checks each implementation's result against an
// independent host reference before it times it, and writes one CSV row per
// implementation and size (bench/README.md).
#pragma once

#include "../bench_util.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace sweep {

/// Modes and limits of one run.
struct config {
  bool quick = false;        ///< host-sized inputs, short budgets (CI)
  double peak_gbs = 0;       ///< device peak bandwidth in GB/s (0: none, host backend)
  double fp32_tflops = 0;    ///< device FP32 peak (0: unknown)
  budget device;             ///< device-resident measurements (batches of back-to-back calls)
  budget host;               ///< host measurements (host loop, host target, transfers)
  budget slow;               ///< single calls of a second or more (host loops at 2^27, naive matmul)
  /// log2 of the smallest and largest N of the 1-D sweeps.
  int lo = 12, hi = 27;
  /// log2 of the largest N of the host series of the elementwise workloads (a
  /// host loop of polar distances at 2^27 takes seconds a call: above this the
  /// series stops, the GPU ones go on to 2^hi).
  int host_hi = 27;
};

/// What every workload receives.
struct context {
  sweep_recorder& rec;
  config cfg;
  /// Names an implementation on the build's device target: "GPU" in a CUDA
  /// build; in a host build the device target is the host ("device=host").
  std::string dev;
};

/// Deterministic uniform floats in [lo, hi) (splitmix64; fast enough for 2^27).
std::vector<float> uniform(std::size_t n, std::uint64_t seed, float lo = -1.0f, float hi = 1.0f);

/// "8192x8192", "134217728": shapes in the CSV carry no commas.
std::string shape_str(std::initializer_list<long long> dims);

/// Exponents lo, lo + step, ..., hi (hi always included).
std::vector<int> exponents(int lo, int hi, int step = 1);

/// The seed's gaussian pdf (workloads gaussian_pdf, gaussian_pdf_host, call_overhead).
struct gauss_f {
  UFUNC_HD float operator()(float x, float mean, float sigma) const {
    const float z = (x - mean) / sigma;
    return expf(-0.5f * z * z) / (sigma * 2.5066282746310002f);
  }
};

/// got[i] within 1e-5 relative (+2e-6) of want[i] for every i < n (float32
/// elementwise results against a host reference), recorded as a check `what`.
bool all_close(sweep_recorder& rec, const float* got, const float* want, std::size_t n, const std::string& what);

/// |got - want| <= rel * scale + abs_tol, else a message on stderr.
bool close(double got, double want, double rel, double scale, double abs_tol = 0);

/// The limit of a memory-bound device row: (peak GB/s, its source), or (0, "")
/// for host rows.
inline std::pair<double, std::string> bandwidth_limit(const context& c, bool on_device) {
  if (!on_device || c.cfg.peak_gbs <= 0) return {0, ""};
  return {c.cfg.peak_gbs, "peak bandwidth (memory clock x bus x 2)"};
}

void sum_workloads(context& c);          // (1) sum, (2) abs-sum
void elementwise_workloads(context& c);  // (3) gaussian pdf, hypot, polar distance; broadcast
void overhead_workload(context& c);      // (4) per-call overhead at small N vs a raw launch
void matmul_workload(context& c);        // (5) matmul, every variant and cuBLAS
void transpose_workload(context& c);     // (6) transpose, every variant and a copy
void axis_workload(context& c);          // (7) axis reductions
void lazy_workloads(context& c);         // fused expressions, dot, argmax
void pairwise_workloads(context& c);     // kernel sums and nearest neighbours over N x M pairs
void host_memory_workload(context& c);   // gaussian pdf of host data on the device (streamed)

}  // namespace sweep
