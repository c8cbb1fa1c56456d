// The seeds' programs as a ufunc user writes them, on the workloads and sizes of
// bench/peers/numba_seeds.py (the same programs in Numba CUDA, run right after
// in the same lease; issue 43's target: ufunc >= 1.5x Numba on each):
//   hypot, the gaussian pdf (scalars mean 0, sigma 1) and the polar distance into
//   `out` at 2^24, 2^26, 2^27; `sum` at the same sizes, returned to the host and
//   into a 0-d device array; FP32 `matmul` (the default variant) at 1024, 2048,
//   4096; a "(n),(n)->()" gufunc dot over 2^20 rows of 64 and 2^24 rows of 16.
// Inputs as numba_seeds.py draws them in distribution (uniform; not the same
// bits). Every result is checked against a double host reference before it is
// timed (elementwise: every 2^(e-20)-th element; matmul: 64 sampled elements);
// a failed check prints CHECK FAILED, its row is left out and the exit status is 1.
// Output: peers.csv rows (bench/README.md) into the file named (default
// bench_seeds.csv), implementation "ufunc GPU ...".
//   usage: bench_seeds [--quick] [out.csv]
#include <ufunc/ufunc.hpp>

#include "bench_util.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

using namespace bench;

namespace {

using ufunc::index_t;

constexpr float SQRT_2PI = 2.5066282746310002f;

struct hypot_f {
  UFUNC_HD float operator()(float a, float b) const { return sqrtf(a * a + b * b); }
};
struct pdf_f {
  UFUNC_HD float operator()(float x, float mu, float sigma) const {
    const float z = (x - mu) / sigma;
    return expf(-0.5f * z * z) / (sigma * SQRT_2PI);
  }
};
struct polar_f {
  UFUNC_HD float operator()(float r1, float t1, float r2, float t2) const {
    const float x1 = r1 * cosf(t1), y1 = r1 * sinf(t1), x2 = r2 * cosf(t2), y2 = r2 * sinf(t2);
    return sqrtf((x1 - x2) * (x1 - x2) + (y1 - y2) * (y1 - y2));
  }
};
struct dot_f {
  template <class X, class Y, class R>
  UFUNC_HD void operator()(const X& x, const Y& y, const R& r) const noexcept {
    float s = 0;
    for (index_t j = 0; j < x.shape()[0]; ++j) s += x(j) * y(j);
    r() = s;
  }
};

std::vector<float> uniform(std::size_t n, std::uint64_t seed, float lo = 0.f, float hi = 1.f) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = u(g);
  return v;
}

std::string dims(std::initializer_list<long long> d) {
  std::string s;
  for (long long x : d) s += (s.empty() ? "" : "x") + std::to_string(x);
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  std::string csv = "bench_seeds.csv";
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0)
      quick = true;
    else
      csv = argv[i];
  }
  const auto dev = bench_device("bench_seeds", with_memory_clock);
  if (!dev) return 77;
  std::fflush(stdout);
  const double peak_gbs = dev->peak_bandwidth() / 1e9;
  const std::string bw_src = "peak bandwidth (memory clock x bus x 2)";
  const double fp32 = fp32_peak_tflops();
  const std::string fp32_src = "FP32 peak (SMs x FP32 lanes x 2 x SM clock)";
  const budget mem{100, 5, 25, 10};
  const budget mm{300, 3, 15, 1};
  sweep_recorder rec(csv, run_info::current());
  const std::vector<int> exps = quick ? std::vector<int>{16, 20} : std::vector<int>{24, 26, 27};

  // ---- elementwise into out ------------------------------------------------------------
  const auto hyp = ufunc::vectorize(hypot_f{}, "hypot");
  const auto pdf = ufunc::vectorize(pdf_f{}, "gaussian_pdf");
  const auto polar = ufunc::vectorize(polar_f{}, "polar_distance");
  for (int e : exps) {
    const std::size_t n = std::size_t(1) << e, step = std::size_t(1) << (e > 20 ? e - 20 : 0);
    const std::string sh = dims({static_cast<long long>(n)});
    auto o = ufunc::empty<float>(ufunc::shape{static_cast<index_t>(n)});
    auto checked = [&](const std::string& what, const std::function<void()>& call,
                       const std::function<double(std::size_t)>& want) {
      UFUNC_CUDA_CHECK(cudaMemset(o.data(), 0xFF, n * 4));
      call();
      const auto h = o.to_host();
      for (std::size_t i = 0; i < n; i += step) {
        const double w = want(i);
        if (!(std::fabs(h[i] - w) <= 1e-5 * std::fabs(w) + 2e-6))
          return rec.check(false, what + ": [" + std::to_string(i) + "] = " + std::to_string(h[i]) + ", reference " +
                                      std::to_string(w));
      }
      return true;
    };
    {
      const auto ha = uniform(n, 12), hb = uniform(n, 13);
      const auto a = ufunc::to_device(ha), b = ufunc::to_device(hb);
      auto f = [&] { hyp(a, b, ufunc::out(o)); };
      if (checked("hypot " + sh, f, [&](std::size_t i) { return std::hypot(double(ha[i]), double(hb[i])); }))
        rec.row("hypot", "ufunc GPU vectorize into out", sh, "float32", double(n),
                measure<ufunc::target::device>(f, mem), 12.0 * n, "GB/s", peak_gbs, bw_src);
    }
    {
      const auto hx = uniform(n, 11, -3.f, 3.f);
      const auto x = ufunc::to_device(hx);
      auto f = [&] { pdf(x, 0.0f, 1.0f, ufunc::out(o)); };
      if (checked("gaussian_pdf " + sh, f, [&](std::size_t i) {
            const double z = hx[i];
            return std::exp(-0.5 * z * z) / 2.5066282746310002;
          }))
        rec.row("gaussian_pdf", "ufunc GPU vectorize (x, mu, sigma), scalars, into out", sh, "float32", double(n),
                measure<ufunc::target::device>(f, mem), 8.0 * n, "GB/s", peak_gbs, bw_src);
    }
    {
      const float two_pi = 6.2831853f;
      const auto h1 = uniform(n, 14), h2 = uniform(n, 15, 0.f, two_pi), h3 = uniform(n, 16), h4 = uniform(n, 17, 0.f, two_pi);
      const auto r1 = ufunc::to_device(h1), t1 = ufunc::to_device(h2), r2 = ufunc::to_device(h3), t2 = ufunc::to_device(h4);
      auto f = [&] { polar(r1, t1, r2, t2, ufunc::out(o)); };
      if (checked("polar_distance " + sh, f, [&](std::size_t i) {
            const double x1 = h1[i] * std::cos(double(h2[i])), y1 = h1[i] * std::sin(double(h2[i]));
            const double x2 = h3[i] * std::cos(double(h4[i])), y2 = h3[i] * std::sin(double(h4[i]));
            return std::sqrt((x1 - x2) * (x1 - x2) + (y1 - y2) * (y1 - y2));
          }))
        rec.row("polar_distance", "ufunc GPU vectorize into out", sh, "float32", double(n),
                measure<ufunc::target::device>(f, mem), 20.0 * n, "GB/s", peak_gbs, bw_src);
    }
  }

  // ---- sum ------------------------------------------------------------------------------
  for (int e : exps) {
    const std::size_t n = std::size_t(1) << e;
    const std::string sh = dims({static_cast<long long>(n)});
    const auto h = uniform(n, 1);
    double ref = 0, mag = 0;
    for (float v : h) ref += v, mag += std::fabs(v);
    const double tol = (e + 32) * 0x1p-24 * mag;  // docs/reductions.md's bound
    const auto x = ufunc::to_device(h);
    auto r0 = ufunc::empty<float>(ufunc::shape{});
    float got = 0;
    auto f_host = [&] { got = ufunc::sum(x); };
    auto f_dev = [&] { ufunc::sum(x, ufunc::out(r0)); };
    f_host();
    if (rec.check(std::fabs(got - ref) <= tol, "sum " + sh + " to the host"))
      rec.row("sum", "ufunc GPU sum returning a host scalar", sh, "float32", double(n),
              measure<ufunc::target::device>(f_host, budget{100, 5, 25, 1}), 4.0 * n, "GB/s", peak_gbs, bw_src);
    f_dev();
    if (rec.check(std::fabs(r0.to_host()[0] - ref) <= tol, "sum " + sh + " into a 0-d array"))
      rec.row("sum", "ufunc GPU sum into a 0-d device array (out=)", sh, "float32", double(n),
              measure<ufunc::target::device>(f_dev, mem), 4.0 * n, "GB/s", peak_gbs, bw_src);
  }

  // ---- matmul FP32 ----------------------------------------------------------------------
  for (index_t n : quick ? std::vector<index_t>{128, 256} : std::vector<index_t>{1024, 2048, 4096}) {
    const std::size_t nn = std::size_t(n) * std::size_t(n);
    const auto ha = uniform(nn, 41), hb = uniform(nn, 42);
    const auto A = ufunc::to_device(ha, {n, n}), B = ufunc::to_device(hb, {n, n});
    auto C = ufunc::empty<float>(ufunc::shape{n, n});
    auto f = [&] { ufunc::matmul(A, B, ufunc::out(C)); };
    UFUNC_CUDA_CHECK(cudaMemset(C.data(), 0xFF, nn * 4));
    f();
    const auto hc = C.to_host();
    bool ok = true;
    for (int s = 0; s < 64 && ok; ++s) {
      const std::size_t i = std::size_t(s) * 7919 % std::size_t(n), j = (std::size_t(s) * 104729 + 13) % std::size_t(n);
      double w = 0, m = 0;
      for (std::size_t p = 0; p < std::size_t(n); ++p)
        w += double(ha[i * n + p]) * hb[p * n + j], m += std::fabs(double(ha[i * n + p]) * hb[p * n + j]);
      ok = std::fabs(hc[i * n + j] - w) <= 2.0 * double(n) * 0x1p-24 * m + 1e-6;
    }
    const std::string sh = dims({n, n, n});
    if (rec.check(ok, "matmul " + sh))
      rec.row("matmul", "ufunc GPU matmul FP32 into out (default variant)", sh, "float32", double(n),
              measure<ufunc::target::device>(f, mm), 2.0 * double(n) * double(n) * double(n), "TFLOP/s", fp32,
              fp32_src);
  }

  // ---- gufunc dot ------------------------------------------------------------------------
  const auto dot = ufunc::gufunc(dot_f{}, "(n),(n)->()");
  for (auto rk : quick ? std::vector<std::pair<index_t, index_t>>{{1 << 14, 64}}
                       : std::vector<std::pair<index_t, index_t>>{{1 << 20, 64}, {1 << 24, 16}}) {
    const index_t rows = rk.first, k = rk.second;
    const std::size_t cnt = std::size_t(rows) * std::size_t(k);
    const auto hx = uniform(cnt, 81), hy = uniform(cnt, 82);
    const auto x = ufunc::to_device(hx, {rows, k}), y = ufunc::to_device(hy, {rows, k});
    auto r = ufunc::empty<float>(ufunc::shape{rows});
    auto f = [&] { dot(x, y, ufunc::out(r)); };
    UFUNC_CUDA_CHECK(cudaMemset(r.data(), 0xFF, std::size_t(rows) * 4));
    f();
    const auto hr = r.to_host();
    bool ok = true;
    for (index_t i = 0; i < rows && ok; ++i) {
      double w = 0, m = 0;
      for (index_t j = 0; j < k; ++j) {
        const double t = double(hx[std::size_t(i * k + j)]) * hy[std::size_t(i * k + j)];
        w += t, m += std::fabs(t);
      }
      ok = std::fabs(hr[std::size_t(i)] - w) <= double(k) * 0x1p-24 * m + 1e-6;
    }
    const std::string sh = dims({rows, k});
    if (rec.check(ok, "gufunc_dot " + sh))
      rec.row("gufunc_dot", "ufunc GPU gufunc('(n),(n)->()') into out", sh, "float32", double(cnt),
              measure<ufunc::target::device>(f, mem), 8.0 * double(cnt) + 4.0 * double(rows), "GB/s", peak_gbs, bw_src);
  }
  std::printf("bench_seeds: %d rows in %s, %d checks failed\n", rec.rows(), csv.c_str(), rec.failures());
  return rec.failures() ? 1 : 0;
}
