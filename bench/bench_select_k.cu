// k nearest neighbours as a pairwise reduction (issue 42): ufunc::argmin_k<K>
// over the squared distances of 3-D points, x_i against y_j, on the tiled
// kernel (kernels/select_k_pairwise.cuh: y_j tiles in shared memory, each
// output's K best pairs in registers), in pairs per second:
//   1. argmin_k<16> of 2^20 x 2^20 points: target >= 0.5 T pairs/s;
//   2. beside it on the same points: argmin_k<1>, ufunc::argmin (the reduction
//      engine's 1-nearest neighbour), min_k<16> (values too) and argmin_k<64>;
//   3. few outputs, long rows: 1024 x 2^24 (rows cut into chunks, lists merged);
//   4. against the dense way, topk(evaluate(D), 16) of the 2^14 x 2^14 distance
//      matrix (which needs N x M memory and more): the speed ratio.
// Before timing, sampled rows are checked against double-precision loops: the
// indices in range and distinct, each one's distance no more than the K-th
// smallest distance of the row (relative 1e-5: the kernel's float distances
// round differently from double), the values ascending and equal to their
// index's distance, the 1-NN entry the row's minimum.
#include "bench_util.hpp"
#include "workloads_pairwise.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <set>
#include <vector>

namespace {

using namespace workloads;  // P3, dist2_3, ref_dist2
using ufunc::index_t;

/// Checks rows i = 0, step, 2 step, ... of a k-NN result (indices `idx`, rows
/// of k; values `val` when not empty) against double loops over the m points.
/// Returns the number of bad rows.
long check_knn(const std::vector<float>& hx, const std::vector<float>& hy, long n, long m, int k,
               const std::vector<index_t>& idx, const std::vector<float>& val, long rows) {
  long bad = 0;
  std::vector<double> d(static_cast<std::size_t>(m));
  for (long i = 0; i < n; i += std::max(1L, n / rows)) {
    for (long j = 0; j < m; ++j) d[std::size_t(j)] = ref_dist2(hx, i, hy, j);
    std::vector<double> s(d);
    std::nth_element(s.begin(), s.begin() + (k - 1), s.end());
    const double kth = s[std::size_t(k - 1)];
    const double best = *std::min_element(d.begin(), d.end());
    std::set<index_t> seen;
    bool ok = true;
    for (int q = 0; q < k; ++q) {
      const index_t j = idx[std::size_t(i * k + q)];
      if (j < 0 || j >= m || !seen.insert(j).second) {
        ok = false;
        break;
      }
      const double dj = d[std::size_t(j)];
      ok = ok && dj <= kth * (1 + 1e-5) + 1e-12;
      if (q == 0) ok = ok && dj <= best * (1 + 1e-5) + 1e-12;
      if (!val.empty()) {
        const double v = val[std::size_t(i * k + q)];
        ok = ok && std::fabs(v - dj) <= 1e-5 * dj + 1e-12;
        if (q > 0) ok = ok && val[std::size_t(i * k + q - 1)] <= val[std::size_t(i * k + q)];
      }
    }
    bad += !ok;
  }
  return bad;
}

}  // namespace

int main() {
  const auto dev = bench_device("bench_select_k", with_cc_and_memory);
  if (!dev) return 77;
  int khz = 0;
  UFUNC_CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
  // The squared distance is 6 FP32 instructions; with the comparison against the
  // list's last value and the shared-memory loads, about 8 issue slots a pair.
  const double fp32_bound = double(dev->multiprocessors) * 128 * khz * 1e3 / 8;
  std::printf("bound: ~8 instructions per pair on 128 FP32 lanes per SM: %.2f T pairs/s (%d SMs at %.0f MHz)\n\n",
              fp32_bound * 1e-12, dev->multiprocessors, khz * 1e-3);
  bool correct = true;
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  auto fill = [&](std::size_t n) {
    std::vector<float> v(n);
    for (auto& x : v) x = u(rng);
    return v;
  };
  const long n = 1L << 20, m = n;
  const auto hx = fill(std::size_t(3 * n)), hy = fill(std::size_t(3 * m));
  const auto X = ufunc::asarray(hx, ufunc::shape{n, 1, 3});
  const auto Y = ufunc::asarray(hy, ufunc::shape{1, m, 3});
  const auto d2 = ufunc::vectorize(dist2_3{}, "d2");
  const auto D = d2.lazy(ufunc::vec<3>(X), ufunc::vec<3>(Y));
  const double pairs = double(n) * double(m);
  auto rate = [&](double ms) { return pairs / (ms * 1e-3); };

  // ---- checks on 64 sampled rows ---------------------------------------------
  {
    const auto nn16 = ufunc::argmin_k<16>(D, ufunc::axis(1)).to_host();
    const long bad16 = check_knn(hx, hy, n, m, 16, nn16, {}, 64);
    const auto mk = ufunc::min_k<16>(D, ufunc::axis(1));
    const long badv = check_knn(hx, hy, n, m, 16, mk.indices.to_host(), mk.values.to_host(), 64);
    const bool same = mk.indices.to_host() == nn16;
    const auto nn64 = ufunc::argmin_k<64>(D, ufunc::axis(1)).to_host();
    const long bad64 = check_knn(hx, hy, n, m, 64, nn64, {}, 64);
    const auto nn1 = ufunc::argmin_k<1>(D, ufunc::axis(1)).to_host();
    const long bad1 = check_knn(hx, hy, n, m, 1, nn1, {}, 64);
    std::printf("checks on 64 sampled rows: argmin_k<16> %ld bad, min_k<16> %ld bad (indices %s argmin_k's), "
                "argmin_k<64> %ld bad, argmin_k<1> %ld bad\n",
                bad16, badv, same ? "equal to" : "DIFFER from", bad64, bad1);
    correct &= bad16 == 0 && badv == 0 && same && bad64 == 0 && bad1 == 0;
  }

  // ---- 2^20 x 2^20 -------------------------------------------------------------
  const double t16 = time_device_ms_budget([&] { (void)ufunc::argmin_k<16>(D, ufunc::axis(1)); }, 3000, 5);
  report("argmin_k<16> 2^20 x 2^20 f32 (vec<3>): time", t16, "ms");
  report("argmin_k<16>: T pairs/s", rate(t16) * 1e-12, "T/s", ">= 0.5", rate(t16) >= 0.5e12);
  report("  its rate / the ~8-instruction FP32 bound", rate(t16) / fp32_bound, "ratio");
  const double tv16 = time_device_ms_budget([&] { (void)ufunc::min_k<16>(D, ufunc::axis(1)); }, 3000, 5);
  report("min_k<16> (values and indices): T pairs/s", rate(tv16) * 1e-12, "T/s");
  const double t1 = time_device_ms_budget([&] { (void)ufunc::argmin_k<1>(D, ufunc::axis(1)); }, 3000, 5);
  report("argmin_k<1>: T pairs/s", rate(t1) * 1e-12, "T/s");
  ufunc::array<index_t> nn(ufunc::shape{n});
  const double ta = time_device_ms_budget([&] { ufunc::argmin(D, ufunc::axis(1), ufunc::out(nn)); }, 3000, 5);
  report("ufunc::argmin (1-NN, the reduction engine): T pairs/s", rate(ta) * 1e-12, "T/s");
  report("  argmin_k<16> time / argmin time", t16 / ta, "ratio");
  const double t64 = time_device_ms_budget([&] { (void)ufunc::argmin_k<64>(D, ufunc::axis(1)); }, 3000, 3);
  report("argmin_k<64>: T pairs/s", rate(t64) * 1e-12, "T/s");

  // ---- few outputs: 1024 x 2^24 ------------------------------------------------
  {
    const long ns = 1024, ms = 1L << 24;
    const auto hys = fill(std::size_t(3 * ms));
    const auto Xs = ufunc::make_view(X.data(), ufunc::shape{ns, 1, 3});
    const auto Ys = ufunc::asarray(hys, ufunc::shape{1, ms, 3});
    const auto Ds = d2.lazy(ufunc::vec<3>(Xs), ufunc::vec<3>(Ys));
    const auto got = ufunc::argmin_k<16>(Ds, ufunc::axis(1)).to_host();
    const long bad = check_knn(hx, hys, ns, ms, 16, got, {}, 8);
    std::printf("1024 x 2^24: %ld of 8 sampled rows bad\n", bad);
    correct &= bad == 0;
    const double t = time_device_ms_budget([&] { (void)ufunc::argmin_k<16>(Ds, ufunc::axis(1)); }, 1000, 10);
    const double r = double(ns) * double(ms) / (t * 1e-3);
    report("argmin_k<16> 1024 x 2^24 (rows split, lists merged): T pairs/s", r * 1e-12, "T/s");
    report("  its rate / the 2^20 x 2^20 rate", r / rate(t16), "ratio");
  }

  // ---- against the dense way: topk of the evaluated distances, 2^14 x 2^14 ------
  {
    const long q = 1L << 14;
    const auto Xq = ufunc::make_view(X.data(), ufunc::shape{q, 1, 3});
    const auto Yq = ufunc::make_view(Y.data(), ufunc::shape{1, q, 3});
    const auto Dq = d2.lazy(ufunc::vec<3>(Xq), ufunc::vec<3>(Yq));
    const auto a = ufunc::min_k<16>(Dq, ufunc::axis(1));
    const auto t = ufunc::topk(ufunc::evaluate(Dq), 16, 1, false);
    // The same map in two kernels: equal unless nvcc contracted the distance's
    // multiply-adds differently in them (then a near tie may order otherwise).
    const auto ai = a.indices.to_host(), ti = t.indices.to_host();
    long differ = 0;
    for (long i = 0; i < q; ++i)
      differ += !std::equal(ai.begin() + i * 16, ai.begin() + i * 16 + 16, ti.begin() + i * 16);
    const long bad = check_knn(hx, hy, q, q, 16, ai, a.values.to_host(), 64);
    std::printf("2^14 x 2^14: min_k<16> rows differing from topk(evaluate(D), 16): %ld of %ld; %ld of 64 sampled "
                "rows bad\n", differ, q, bad);
    correct &= bad == 0;
    const auto [t_dense, t_k] = time_interleaved_ms(
        [&] { (void)ufunc::topk(ufunc::evaluate(Dq), 16, 1, false); },
        [&] { (void)ufunc::min_k<16>(Dq, ufunc::axis(1)); }, 5, 1);
    report("2^14 x 2^14: topk(evaluate(D), 16) time", t_dense, "ms");
    report("2^14 x 2^14: min_k<16> time", t_k, "ms");
    report("  min_k<16> speed / the dense way's", t_dense / t_k, "ratio");
  }
  summary("bench_select_k");
  if (!correct) {
    std::puts("bench_select_k: WRONG RESULTS");
    return 1;
  }
  return 0;
}
