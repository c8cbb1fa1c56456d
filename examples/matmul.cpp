// matmul: the seed's comparison of matrix-product implementations, in C++.
//
// A host reference (the host target's cache-blocked, multi-threaded product)
// and every variant of the build's device target (CUDA: naive, tiled,
// optimized; host build: blocked) multiply the same float matrices; each result
// is checked against a double-precision reference and timed (on the GPU the
// median of 3 runs after a warm-up). The point is the distance between the
// variants: the naive kernel re-reads A and B from memory for every output,
// the tiled one stages 16x16 tiles in shared memory, and the optimized one
// keeps an 8x8 block of C per thread in registers, which is what it takes to
// approach the FP32 peak.
// At 1000^3 the check is complete; larger sizes check 4096 random entries
// (the full double reference would dominate the run).
#include <ufunc/ufunc.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

/// Median of 3 timed runs after a warm-up on the GPU; on the host backend one
/// run (nothing to warm up, and CI runs this under sanitizers on 2 cores).
double median_seconds(const std::function<void()>& fn) {
  const int runs = ufunc::cuda_backend ? 3 : 1;
  if (ufunc::cuda_backend) fn();
  ufunc::synchronize();
  std::vector<double> t;
  for (int r = 0; r < runs; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    ufunc::synchronize();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

/// Relative Frobenius error of c against the double product of a (m,k) and
/// b (k,n), over all entries or over `samples` random ones.
double check(const std::vector<float>& c, const std::vector<float>& a, const std::vector<float>& b, long m, long n,
             long k, long samples, std::mt19937& rng) {
  double num = 0, den = 0;
  auto entry = [&](long i, long j) {
    double s = 0;
    for (long p = 0; p < k; ++p) s += double(a[i * k + p]) * double(b[p * n + j]);
    const double d = double(c[i * n + j]) - s;
    num += d * d;
    den += s * s;
  };
  if (samples <= 0) {
    std::vector<double> row(static_cast<std::size_t>(n));
    for (long i = 0; i < m; ++i) {  // row-wise in double: i-p-j order keeps the reference fast
      std::fill(row.begin(), row.end(), 0.0);
      for (long p = 0; p < k; ++p) {
        const double x = a[i * k + p];
        for (long j = 0; j < n; ++j) row[j] += x * double(b[p * n + j]);
      }
      for (long j = 0; j < n; ++j) {
        const double d = double(c[i * n + j]) - row[j];
        num += d * d;
        den += row[j] * row[j];
      }
    }
  } else {
    std::uniform_int_distribution<long> ri(0, m - 1), rj(0, n - 1);
    for (long s = 0; s < samples; ++s) entry(ri(rng), rj(rng));
  }
  return std::sqrt(num / den);
}

}  // namespace

int main() {
  if (ufunc::cuda_backend && !ufunc::device_available()) {
    std::puts("matmul: no CUDA device, skipped");
    return 77;
  }
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.f, 1.f);
  const std::vector<long> sizes = ufunc::cuda_backend ? std::vector<long>{1000, 2048, 4096} : std::vector<long>{1000, 1200};
  bool ok = true;
  std::printf("%-24s %6s %10s %10s %12s\n", "implementation", "n", "ms", "TFLOP/s", "rel. error");
  for (long n : sizes) {
    std::vector<float> ha(static_cast<std::size_t>(n * n)), hb(ha.size());
    for (auto& v : ha) v = normal(rng);
    for (auto& v : hb) v = normal(rng);
    const long samples = n <= 1000 ? 0 : 4096;
    const double flop = 2.0 * n * n * n;
    auto report = [&](const std::string& name, double s, const std::vector<float>& c, double tol = 1e-5) {
      const double err = check(c, ha, hb, n, n, n, samples, rng);
      // plain FP32 accumulation over k <= 4096 of normal inputs; tf32's 10-bit inputs: ~1e-3
      const bool good = err <= tol;
      ok = ok && good;
      std::printf("%-24s %6ld %10.3f %10.3f %12.2e%s\n", name.c_str(), n, s * 1e3, flop / s / 1e12, err,
                  good ? "" : "  MISMATCH");
    };
    {  // host reference: the host target's blocked product
      const auto a = ufunc::asarray<ufunc::target::host>(ha, ufunc::shape{n, n});
      const auto b = ufunc::asarray<ufunc::target::host>(hb, ufunc::shape{n, n});
      auto c = ufunc::empty<float, ufunc::target::host>(ufunc::shape{n, n});
      const double s = median_seconds([&] { ufunc::matmul(a, b, ufunc::out(c)); });
      report("host reference", s, c.to_host());
    }
    const auto a = ufunc::to_device(ha, ufunc::shape{n, n});
    const auto b = ufunc::to_device(hb, ufunc::shape{n, n});
    auto c = ufunc::empty<float>(ufunc::shape{n, n});
    for (auto v : ufunc::matmul_variants()) {
      const double s = median_seconds([&] { ufunc::matmul(a, b, ufunc::out(c), v); });
      report(std::string(ufunc::cuda_backend ? "cuda " : "") + ufunc::to_string(v), s, c.to_host(),
             v == ufunc::matmul_variant::tf32 ? 3e-3 : 1e-5);
    }
  }
  std::puts(ok ? "matmul: ok" : "matmul: FAILED");
  return ok ? 0 : 1;
}
