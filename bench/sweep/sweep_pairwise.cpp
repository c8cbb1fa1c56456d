// Pairwise reductions (issue 15): the 3-D Gaussian kernel sum
// a_i = sum_j exp(-|x_i - y_j|^2 / 2) b_j and 1-nearest neighbours over N x M
// pairs, N = M = 2^10 ... 2^18 (the peers' dense method runs where its N x M
// matrix fits: bench/peers), in pairs per second. Every result is checked on
// sampled rows against double loops first.
#include "sweep.hpp"

#include "../workloads_pairwise.hpp"

namespace sweep {

void pairwise_workloads(context& c) {
  using ufunc::index_t;
  using namespace workloads;
  const auto ksum = ufunc::map_reduce(gauss_term3{}, ufunc::plus{});
  const auto d2 = ufunc::vectorize(dist2_3{}, "dist2");
  const int lo = c.cfg.quick ? 8 : 10, hi = c.cfg.quick ? 10 : 18;
  for (int e : exponents(lo, hi, 2)) {
    const index_t n = index_t(1) << e;
    const auto hx = uniform(std::size_t(3 * n), 91), hy = uniform(std::size_t(3 * n), 92), hb = uniform(std::size_t(n), 93, 0.0f, 1.0f);
    const auto X = ufunc::asarray(hx, ufunc::shape{n, 1, 3});
    const auto Y = ufunc::asarray(hy, ufunc::shape{1, n, 3});
    const auto B = ufunc::asarray(hb, ufunc::shape{1, n});
    auto a = ufunc::empty<float>(ufunc::shape{n});
    auto nn = ufunc::empty<index_t>(ufunc::shape{n});
    const std::string shp = shape_str({n, n}), tag = " 2^" + std::to_string(e);
    auto ref_d2 = [&](index_t i, index_t j) { return ref_dist2(hx, i, hy, j); };
    c.rec.progress("kernel_sum_3d" + tag);
    ksum(ufunc::vec<3>(X), ufunc::vec<3>(Y), B, ufunc::axis(1), ufunc::out(a));
    ufunc::argmin(d2.lazy(ufunc::vec<3>(X), ufunc::vec<3>(Y)), ufunc::axis(1), ufunc::out(nn));
    const auto ga = a.to_host();
    const auto gn = nn.to_host();
    bool ok_sum = true, ok_nn = true;
    for (index_t i = 0; i < n; i += std::max<index_t>(1, n / 16)) {
      double s = 0, mag = 0, best = 1e300;
      for (index_t j = 0; j < n; ++j) {
        const double dd = ref_d2(i, j), t = std::exp(-0.5 * dd) * hb[std::size_t(j)];
        s += t, mag += std::fabs(t), best = std::min(best, dd);
      }
      ok_sum = ok_sum && close(ga[std::size_t(i)], s, 1e-5, mag);
      const index_t j = gn[std::size_t(i)];
      ok_nn = ok_nn && j >= 0 && j < n && ref_d2(i, j) <= best * (1 + 1e-6) + 1e-12;
    }
    const double pairs = double(n) * double(n);
    if (c.rec.check(ok_sum, "kernel_sum_3d" + tag))
      c.rec.row("kernel_sum_3d", "ufunc map_reduce(vec<3>)", shp, "float32", pairs,
                measure<ufunc::target::device>([&] { ksum(ufunc::vec<3>(X), ufunc::vec<3>(Y), B, ufunc::axis(1), ufunc::out(a)); },
                                               c.cfg.device),
                pairs, "pairs/s", 0, "");
    c.rec.progress("knn_3d" + tag);
    if (c.rec.check(ok_nn, "knn_3d" + tag))
      c.rec.row("knn_3d", "ufunc argmin(lazy dist2(vec<3>))", shp, "float32", pairs,
                measure<ufunc::target::device>(
                    [&] { ufunc::argmin(d2.lazy(ufunc::vec<3>(X), ufunc::vec<3>(Y)), ufunc::axis(1), ufunc::out(nn)); },
                    c.cfg.device),
                pairs, "pairs/s", 0, "");
  }
}

}  // namespace sweep
