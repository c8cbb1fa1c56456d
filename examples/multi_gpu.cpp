// Several GPUs: the Gaussian pdf exp(-x*x/2)/sqrt(2*pi) and its sum over an
// array sharded by rows over every visible GPU (ufunc::sharded_array), checked
// against a host loop and timed against one GPU doing a shard's worth.
//
// Why it exists: with two or more GPUs the array is sized so that the
// out-of-place pdf (input + output) does not fit one GPU's memory but fits the
// set: each GPU's shard of the input is about 0.4 x its memory, and so is its
// shard of the output. Host memory could not hold such an array comfortably,
// so the input is made on the devices: a sharded zeros array plus a small
// plain row of x values (replicated to every GPU), x[r][c] = xs[c]. The check
// needs no copy back either: max |pdf(x) - ref| is one more sharded reduction
// against the host-computed row ref[c], and the sum is R * sum_c ref[c].
// The one-GPU comparison runs the same calls on GPU 0 alone over the same
// per-GPU size (rows per GPU), so the ratio of throughputs is the scaling.
// Size: MULTI_GPU_ROWS (rows per GPU, 1024 floats each) in the environment or
// argv[1] overrides it; on the host backend (CI) it is small (one host shard).
#include <ufunc/ufunc.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

constexpr long long cols = 1024;

double seconds_of(const std::chrono::steady_clock::time_point& t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

struct run_result {
  double pdf_s = 0, sum_s = 0, sum = 0, max_err = 0;
  double row_sum = 0;  // the first row of pdf(x), summed on the host in double
};

/// x = zeros + xs (the row of x values), y = pdf(x), s = sum(y), err = max |y - ref|.
run_result run(const ufunc::device_set& d, long long rows, const std::vector<float>& xs, const std::vector<float>& ref) {
  auto pdf = ufunc::vectorize([] UFUNC_HD(float x) { return expf(-0.5f * x * x) * 0.3989422804014327f; });
  auto add = ufunc::vectorize([] UFUNC_HD(float z, float x) { return z + x; });
  auto absdiff = ufunc::map_reduce([] UFUNC_HD(float y, float r) { return fabsf(y - r); }, ufunc::maximum{});
  const auto row = ufunc::asarray(xs, ufunc::shape{cols});
  const auto ref_row = ufunc::asarray(ref, ufunc::shape{cols});
  auto x = ufunc::zeros<float>(ufunc::shape{rows, cols}, d);
  add(x, row, ufunc::out(x));  // made on the devices: no host copy of the big array
  run_result r;
  (void)pdf(x);  // warm-up (module load, pools)
  {
    auto t0 = std::chrono::steady_clock::now();
    auto y = pdf(x);  // every device at once; returns when all are done
    r.pdf_s = seconds_of(t0);
    t0 = std::chrono::steady_clock::now();
    r.sum = double(ufunc::sum(y));
    r.sum_s = seconds_of(t0);
    r.max_err = double(absdiff(y, ref_row));
    // Every row of y holds the same values: the exact sum is rows x this row's.
    auto copy = ufunc::vectorize([] UFUNC_HD(float v) { return v; });
    const auto first = copy(ufunc::make_view(y.shard(0).data(), ufunc::shape{cols})).to_host();
    for (float v : first) r.row_sum += double(v);
  }
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  if (ufunc::cuda_backend && !ufunc::device_available()) {
    std::puts("multi_gpu: CUDA backend but no CUDA device: skipped");
    return 77;
  }
  const ufunc::device_set all;  // every visible GPU (the host backend: one host shard)
  const auto devs = ufunc::devices();
  int gpus = all.size();
  if (gpus > 1 && !ufunc::have_nccl) {
    std::printf("multi_gpu: %d GPUs but this build has no NCCL: using GPU 0 only\n", gpus);
    gpus = 1;
  }
  const ufunc::device_set set = gpus > 1 ? all : ufunc::device_set{all[0]};
  // Rows per GPU: ~0.4 x the smallest GPU's memory for the input shard (and as
  // much for the output) with several GPUs; small otherwise.
  long long rows_per = 64;
  if (ufunc::cuda_backend && gpus > 1) {
    std::size_t mem = devs[0].total_memory;
    for (const auto& dv : devs) mem = std::min(mem, dv.total_memory);
    rows_per = static_cast<long long>(0.4 * double(mem) / double(cols * sizeof(float)));
  }
  if (const char* e = std::getenv("MULTI_GPU_ROWS")) rows_per = std::atoll(e);
  if (argc > 1) rows_per = std::atoll(argv[1]);
  if (rows_per < 1) {
    std::puts("multi_gpu: rows per GPU must be at least 1");
    return 2;
  }
  const long long rows = rows_per * set.size();

  // The row of x values in [-5, 5) and its pdf, on the host (the reference).
  std::vector<float> xs(cols), ref(cols);
  double ref_row_sum = 0;
  for (long long c = 0; c < cols; ++c) {
    xs[static_cast<std::size_t>(c)] = -5.0f + 10.0f * float(c) / float(cols);
    const double x = xs[static_cast<std::size_t>(c)];
    ref[static_cast<std::size_t>(c)] = static_cast<float>(std::exp(-0.5 * x * x) / std::sqrt(2.0 * M_PI));
    ref_row_sum += ref[static_cast<std::size_t>(c)];
  }

  const double gib = double(rows) * cols * sizeof(float) / double(1ull << 30);
  std::printf("multi_gpu: %d device(s) %s, %lld x %lld floats (%.2f GiB in, as much out)\n", set.size(),
              set.str().c_str(), rows, cols, gib);
  run_result one;
  if (set.size() > 1) one = run(ufunc::device_set{set[0]}, rows_per, xs, ref);  // freed before the big run
  const run_result r = run(set, rows, xs, ref);

  bool ok = true;
  const double want = ref_row_sum * double(rows);  // the host loop's pdf
  // The sum against its exact value (rows x the sum of the computed row) within
  // docs/multi_gpu.md's bound for a sharded float sum: (log2(n) + 32 + devices) x eps x sum|y|.
  const double n = double(rows) * cols;
  const double exact = r.row_sum * double(rows);
  const double tol = (std::log2(n) + 32 + set.size()) * std::ldexp(1.0, -24) * exact;
  if (std::fabs(r.sum - exact) > tol) {
    std::printf("multi_gpu: FAILED: sum %.9g, exact %.9g (bound %.3g)\n", r.sum, exact, tol);
    ok = false;
  }
  // expf against exp in double: a few float ulps of values below 0.4.
  if (r.max_err > 4e-7) {
    std::printf("multi_gpu: FAILED: max |pdf - host| = %.3g\n", r.max_err);
    ok = false;
  }
  const double bytes = 2.0 * n * sizeof(float);
  std::printf("  pdf: %.3f s (%.1f GB/s)   sum: %.3f s, %.9g (exact %.9g, relative error %.2g; host loop's pdf %.9g)\n",
              r.pdf_s, bytes / r.pdf_s / 1e9, r.sum_s, r.sum, exact, std::fabs(r.sum - exact) / exact, want);
  if (set.size() > 1) {
    const double n1 = double(rows_per) * cols;
    const double pdf_ratio = (bytes / r.pdf_s) / (2.0 * n1 * sizeof(float) / one.pdf_s);
    const double sum_ratio = (n / r.sum_s) / (n1 / one.sum_s);
    std::printf("  one GPU on %lld rows: pdf %.3f s, sum %.3f s -> throughput ratio pdf %.2fx, sum %.2fx over %d GPUs\n",
                rows_per, one.pdf_s, one.sum_s, pdf_ratio, sum_ratio, set.size());
  }
  std::puts(ok ? "multi_gpu: ok" : "multi_gpu: FAILED");
  return ok ? 0 : 1;
}
