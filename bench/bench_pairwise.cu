// Pairwise reductions (issue 15): a 3-D Gaussian kernel sum and 1-nearest
// neighbours over N x M pairs on the tiled pairwise kernel, in pairs per second
// against the device's arithmetic bounds (computed from its SM count and clock:
// one exp per pair on the special-function units, 16 per clock per SM; about 20
// FP32 instructions per pair on 128 lanes per SM), against the general reduction
// kernels (forced by an extra input that moves along both axes), and with small
// outputs (N = 1024, M = 2^24: the j range split across blocks). Results are
// checked on sampled rows against double loops before they are timed.
#include "bench_util.hpp"
#include "workloads_pairwise.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

namespace {

using namespace workloads;  // P3, gauss_term3, dist2_3, ref_dist2

/// The kernel sum's term with an extra input z that moves along both axes (z =
/// 0): no input split into x_i / y_j roles, so the general kernels run (the
/// "before").
struct term_vec_z {
  UFUNC_HD float operator()(const P3& x, const P3& y, float b, float z) const { return gauss_term3{}(x, y, b) + z; }
};

}  // namespace

int main() {
  const auto dev = bench_device("bench_pairwise", with_cc_and_memory);
  if (!dev) return 77;
  int khz = 0;
  UFUNC_CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
  const double sfu_bound = double(dev->multiprocessors) * 16 * khz * 1e3;        // pairs/s, one exp each
  const double fp32_bound = double(dev->multiprocessors) * 128 * khz * 1e3 / 20;  // ~20 FP32 instructions per pair
  std::printf("bounds: one exp per pair on the SFUs %.2f T pairs/s; ~20 FP32 instructions per pair %.2f T pairs/s "
              "(%d SMs at %.0f MHz)\n\n", sfu_bound * 1e-12, fp32_bound * 1e-12, dev->multiprocessors, khz * 1e-3);
  bool correct = true;
  std::mt19937 rng(15);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f), w(0.0f, 1.0f);
  auto fill = [&](std::size_t n, bool weight) {
    std::vector<float> v(n);
    for (auto& x : v) x = weight ? w(rng) : u(rng);
    return v;
  };
  const long n = 1L << 20, m = n;
  const auto hx = fill(std::size_t(3 * n), false), hy = fill(std::size_t(3 * m), false), hb = fill(std::size_t(m), true);
  const auto X = ufunc::asarray(hx, ufunc::shape{n, 1, 3});
  const auto Y = ufunc::asarray(hy, ufunc::shape{1, m, 3});
  const auto B = ufunc::asarray(hb, ufunc::shape{1, m});
  const auto ksum = ufunc::map_reduce(gauss_term3{}, ufunc::plus{});
  const auto ksum_z = ufunc::map_reduce(term_vec_z{}, ufunc::plus{});
  const auto d2 = ufunc::vectorize(dist2_3{}, "d2");
  ufunc::array<float> a(ufunc::shape{n});
  ufunc::array<ufunc::index_t> nn(ufunc::shape{n});
  const double pairs = double(n) * double(m);

  // ---- Gaussian kernel sum, 2^20 x 2^20 -----------------------------------
  // The double reference of 64 sampled rows (each sum and its sum of |terms|), for both
  // exponentials' results.
  std::vector<double> ref_s, ref_mag;
  for (long i = 0; i < n; i += n / 64) {
    double s = 0, mag = 0;
    for (long j = 0; j < m; ++j) {
      const double t = std::exp(-0.5 * ref_dist2(hx, i, hy, j)) * hb[std::size_t(j)];
      s += t, mag += std::fabs(t);
    }
    ref_s.push_back(s), ref_mag.push_back(mag);
  }
  auto check_sum = [&](const char* what, const ufunc::array<float>& res) {
    const auto got = res.to_host();
    double worst = 0;
    for (std::size_t r = 0; r < ref_s.size(); ++r)
      worst = std::max(worst, std::fabs(got[r * std::size_t(n / 64)] - ref_s[r]) / ref_mag[r]);
    std::printf("%s: worst relative error on 64 sampled rows %.2e\n", what, worst);
    correct &= worst < 1e-5;
  };
  ksum(ufunc::vec<3>(X), ufunc::vec<3>(Y), B, ufunc::axis(1), ufunc::out(a));
  check_sum("kernel sum", a);
  const double t_sum = time_device_ms_budget([&] { ksum(ufunc::vec<3>(X), ufunc::vec<3>(Y), B, ufunc::axis(1), ufunc::out(a)); }, 2000, 5);
  const double rate_sum = pairs / (t_sum * 1e-3);
  report("Gaussian kernel sum 2^20 x 2^20 f32 (vec<3>): time", t_sum, "ms");
  report("Gaussian kernel sum: T pairs/s", rate_sum * 1e-12, "T/s", ">= 1.5", rate_sum >= 1.5e12);
  report("  its rate / the SFU bound", rate_sum / sfu_bound, "ratio");
  report("  its rate / the FP32 estimate", rate_sum / fp32_bound, "ratio");

  // ---- the same sum with __expf, as KeOps compiles it (-use_fast_math) ------
  {
    const auto ksum_fast = ufunc::map_reduce(gauss_term3_fast{}, ufunc::plus{});
    ufunc::array<float> af(ufunc::shape{n});
    ksum_fast(ufunc::vec<3>(X), ufunc::vec<3>(Y), B, ufunc::axis(1), ufunc::out(af));
    check_sum("kernel sum with __expf", af);
    const double t_fast = time_device_ms_budget(
        [&] { ksum_fast(ufunc::vec<3>(X), ufunc::vec<3>(Y), B, ufunc::axis(1), ufunc::out(af)); }, 2000, 5);
    report("Gaussian kernel sum with __expf (KeOps' fast math) 2^20 x 2^20: time", t_fast, "ms");
    report("  T pairs/s", pairs / (t_fast * 1e-3) * 1e-12, "T/s");
  }

  // ---- the general kernels on the same work (2^18 x 2^18, interleaved) -----
  {
    const long q = 1L << 18;
    const auto Xq = ufunc::make_view(X.data(), ufunc::shape{q, 1, 3});
    const auto Yq = ufunc::make_view(Y.data(), ufunc::shape{1, q, 3});
    const auto Bq = ufunc::make_view(B.data(), ufunc::shape{1, q});
    ufunc::array<float> zeros = ufunc::full<float>(ufunc::shape{2 * q}, 0.0f);
    const auto Z = ufunc::make_view(zeros.data(), ufunc::shape{q, q}, {1, 1});  // moves along i and j
    ufunc::array<float> aq(ufunc::shape{q}), az(ufunc::shape{q});
    ksum(ufunc::vec<3>(Xq), ufunc::vec<3>(Yq), Bq, ufunc::axis(1), ufunc::out(aq));
    ksum_z(ufunc::vec<3>(Xq), ufunc::vec<3>(Yq), Bq, Z, ufunc::axis(1), ufunc::out(az));
    const auto ha = aq.to_host(), hz = az.to_host();
    double worst = 0;
    for (long i = 0; i < q; ++i) worst = std::max(worst, double(std::fabs(ha[std::size_t(i)] - hz[std::size_t(i)])) / (std::fabs(hz[std::size_t(i)]) + 1e-3));
    correct &= worst < 1e-4;
    const auto [t_gen, t_tiled] = time_interleaved_ms(
        [&] { ksum_z(ufunc::vec<3>(Xq), ufunc::vec<3>(Yq), Bq, Z, ufunc::axis(1), ufunc::out(az)); },
        [&] { ksum(ufunc::vec<3>(Xq), ufunc::vec<3>(Yq), Bq, ufunc::axis(1), ufunc::out(aq)); }, 3, 1);
    report("kernel sum 2^18 x 2^18: general kernels, T pairs/s", double(q) * q / (t_gen * 1e-3) * 1e-12, "T/s");
    report("kernel sum 2^18 x 2^18: tiled kernel / general kernels (speed)", t_gen / t_tiled, "ratio", ">= 7", t_gen / t_tiled >= 7);
  }

  // ---- 1-nearest neighbour, 2^20 x 2^20 ------------------------------------
  ufunc::argmin(d2.lazy(ufunc::vec<3>(X), ufunc::vec<3>(Y)), ufunc::axis(1), ufunc::out(nn));
  {
    const auto got = nn.to_host();
    long bad = 0;
    for (long i = 0; i < n; i += n / 64) {
      double best = 1e300;
      for (long j = 0; j < m; ++j) best = std::min(best, ref_dist2(hx, i, hy, j));
      const long j = static_cast<long>(got[std::size_t(i)]);
      if (j < 0 || j >= m || ref_dist2(hx, i, hy, j) > best * (1 + 1e-6) + 1e-12) ++bad;
    }
    std::printf("1-NN: %ld of 64 sampled queries wrong\n", bad);
    correct &= bad == 0;
  }
  const double t_nn = time_device_ms_budget([&] { ufunc::argmin(d2.lazy(ufunc::vec<3>(X), ufunc::vec<3>(Y)), ufunc::axis(1), ufunc::out(nn)); }, 2000, 5);
  report("1-NN argmin 2^20 x 2^20 f32 (vec<3>): time", t_nn, "ms");
  report("1-NN argmin: T pairs/s", pairs / (t_nn * 1e-3) * 1e-12, "T/s", ">= 1.0", pairs / (t_nn * 1e-3) >= 1.0e12);

  // ---- small outputs: 1024 x 2^24 -------------------------------------------
  {
    const long ns = 1024, ms = 1L << 24;
    const auto hys = fill(std::size_t(3 * ms), false), hbs = fill(std::size_t(ms), true);
    const auto Xs = ufunc::make_view(X.data(), ufunc::shape{ns, 1, 3});
    const auto Ys = ufunc::asarray(hys, ufunc::shape{1, ms, 3});
    const auto Bs = ufunc::asarray(hbs, ufunc::shape{1, ms});
    ufunc::array<float> as(ufunc::shape{ns});
    ksum(ufunc::vec<3>(Xs), ufunc::vec<3>(Ys), Bs, ufunc::axis(1), ufunc::out(as));
    const auto got = as.to_host();
    double worst = 0;
    for (long i = 0; i < ns; i += 256) {
      double s = 0, mag = 0;
      for (long j = 0; j < ms; ++j) {
        const double t = std::exp(-0.5 * ref_dist2(hx, i, hys, j)) * hbs[std::size_t(j)];
        s += t, mag += std::fabs(t);
      }
      worst = std::max(worst, std::fabs(got[std::size_t(i)] - s) / mag);
    }
    correct &= worst < 1e-5;
    const double t = time_device_ms_budget([&] { ksum(ufunc::vec<3>(Xs), ufunc::vec<3>(Ys), Bs, ufunc::axis(1), ufunc::out(as)); }, 500, 15);
    const double rate = double(ns) * double(ms) / (t * 1e-3);
    report("kernel sum 1024 x 2^24: T pairs/s", rate * 1e-12, "T/s");
    report("  its rate / the 2^20 x 2^20 rate", rate / rate_sum, "ratio", ">= 0.8", rate / rate_sum >= 0.8);
  }
  summary("bench_pairwise");
  if (!correct) {
    std::puts("bench_pairwise: WRONG RESULTS");
    return 1;
  }
  return 0;
}
