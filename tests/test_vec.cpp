// ufunc::vec<D>: inputs whose last axis is a core dimension, passed to the
// function as cuda::std::array<T, D>, in ufunc calls, lazy expressions and
// map_reduce/argmin, against serial double-precision loops on fresh random data.
#include "pairwise_support.hpp"

#include <cuda/std/array>

#include <initializer_list>
#include <utility>

namespace {

using ufunc::index_t;
using test::dist2_3;
using test::P3;
using test::ref_dist2;

struct dist3 {
  UFUNC_HD float operator()(const P3& a, const P3& b) const { return sqrtf(dist2_3{}(a, b)); }
};
/// exp(-|x - y|^2 / 2) * b: a Gaussian kernel sum's term.
struct gauss_term {
  UFUNC_HD float operator()(const P3& x, const P3& y, float b) const { return expf(-0.5f * dist2_3{}(x, y)) * b; }
};
/// A weighted 2-D point against a plain weight and a scalar: mixes core and
/// plain inputs in one call (and double coordinates).
struct weighted2 {
  UFUNC_HD double operator()(const cuda::std::array<double, 2>& p, double w, double s) const {
    return (p[0] - 2.0 * p[1]) * w + s;
  }
};
struct first_plus {
  UFUNC_HD float operator()(const cuda::std::array<float, 2>& p, float v) const { return p[0] + v; }
};
struct first_of1 {
  UFUNC_HD float operator()(const cuda::std::array<float, 1>& p) const { return 3.0f * p[0]; }
};

/// Pairwise distances (N,1,3) x (1,M,3) -> (N,M), contiguous and from a
/// transposed (3,N) store, into a new array and into `out`.
template <class Tg>
void check_vectorize(std::uint64_t seed, index_t n, index_t m) {
  INFO("seed " << seed << " n " << n << " m " << m);
  const auto hx = test::random_vector<float>(std::size_t(3 * n), seed);
  const auto hy = test::random_vector<float>(std::size_t(3 * m), seed + 1);
  const auto X = test::make<Tg>(hx, {n, 1, 3});
  const auto Y = test::make<Tg>(hy, {1, m, 3});
  const auto dist = ufunc::vectorize<Tg>(dist3{});
  const auto r = dist(ufunc::vec<3>(X), ufunc::vec<3>(Y));
  CHECK(r.shape() == ufunc::shape{n, m});
  const auto got = r.to_host();
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < m; ++j)
      REQUIRE(test::close(got[std::size_t(i * m + j)], std::sqrt(ref_dist2(hx, i, hy, j)), 1e-5, 1e-5));

  // The same points stored by coordinate, (3, N, 1), seen as (N, 1, 3): the
  // core axis is strided (stride N), into `out` of a new array.
  std::vector<float> hxt(hx.size());
  for (index_t i = 0; i < n; ++i)
    for (int k = 0; k < 3; ++k) hxt[std::size_t(k * n + i)] = hx[std::size_t(3 * i + k)];
  const auto XT = test::make<Tg>(hxt, {3, n, 1});
  const auto Xv = XT.view().permuted({1, 2, 0});
  REQUIRE(Xv.shape() == ufunc::shape{n, 1, 3});
  ufunc::array<float, Tg> o(ufunc::shape{n, m});
  const auto ret = dist(ufunc::vec<3>(Xv), ufunc::vec<3>(Y), ufunc::out(o));
  CHECK(ret.data() == o.data());
  CHECK(o.to_host() == got);

  // Lazy: the same node evaluated, and reduced over j (nearest neighbour).
  const auto e = dist.lazy(ufunc::vec<3>(X), ufunc::vec<3>(Y));
  CHECK(e.shape() == ufunc::shape{n, m});
  CHECK(ufunc::evaluate(e).to_host() == got);
}

/// Gaussian kernel sums a_i = sum_j exp(-|x_i - y_j|^2 / 2) b_j over both
/// orientations, and nearest neighbours with argmin over a lazy distance.
template <class Tg>
void check_reduce(std::uint64_t seed, index_t n, index_t m) {
  INFO("seed " << seed << " n " << n << " m " << m);
  const auto hx = test::random_vector<float>(std::size_t(3 * n), seed, -2, 2);
  const auto hy = test::random_vector<float>(std::size_t(3 * m), seed + 1, -2, 2);
  const auto hb = test::random_vector<float>(std::size_t(m), seed + 2, 0, 1);
  std::vector<double> ref(std::size_t(n), 0.0), abs_ref(std::size_t(n), 0.0);
  std::vector<double> best(std::size_t(n), 1e300);
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < m; ++j) {
      const double d2 = ref_dist2(hx, i, hy, j);
      const double t = std::exp(-0.5 * d2) * hb[std::size_t(j)];
      ref[std::size_t(i)] += t;
      abs_ref[std::size_t(i)] += std::fabs(t);
      best[std::size_t(i)] = std::min(best[std::size_t(i)], d2);
    }
  const auto ksum = ufunc::map_reduce(gauss_term{}, ufunc::plus{});
  {  // reduce over axis 1: X (n,1,3), Y (1,m,3), B (1,m)
    const auto X = test::make<Tg>(hx, {n, 1, 3});
    const auto Y = test::make<Tg>(hy, {1, m, 3});
    const auto B = test::make<Tg>(hb, {1, m});
    const auto a = ksum(ufunc::vec<3>(X), ufunc::vec<3>(Y), B, ufunc::axis(1));
    REQUIRE(a.shape() == ufunc::shape{n});
    const auto got = a.to_host();
    for (index_t i = 0; i < n; ++i)
      REQUIRE(std::fabs(got[std::size_t(i)] - ref[std::size_t(i)]) <= 1e-5 * abs_ref[std::size_t(i)] + 1e-6);
    // keepdims keeps the loop axis, not the core axis.
    CHECK(ksum(ufunc::vec<3>(X), ufunc::vec<3>(Y), B, ufunc::axis(1), ufunc::keepdims).shape() == ufunc::shape{n, 1});
  }
  {  // the other orientation: X (1,n,3), Y (m,1,3), B (m,1), reduced over axis 0
    const auto X = test::make<Tg>(hx, {1, n, 3});
    const auto Y = test::make<Tg>(hy, {m, 1, 3});
    const auto B = test::make<Tg>(hb, {m, 1});
    const auto got = ksum(ufunc::vec<3>(X), ufunc::vec<3>(Y), B, ufunc::axis(0)).to_host();
    REQUIRE(got.size() == std::size_t(n));
    for (index_t i = 0; i < n; ++i)
      REQUIRE(std::fabs(got[std::size_t(i)] - ref[std::size_t(i)]) <= 1e-5 * abs_ref[std::size_t(i)] + 1e-6);
  }
  {  // nearest neighbour: argmin over j of a lazy squared distance
    const auto X = test::make<Tg>(hx, {n, 1, 3});
    const auto Y = test::make<Tg>(hy, {1, m, 3});
    const auto d2 = ufunc::vectorize<Tg>(dist2_3{});
    const auto idx = ufunc::argmin(d2.lazy(ufunc::vec<3>(X), ufunc::vec<3>(Y)), ufunc::axis(1)).to_host();
    REQUIRE(idx.size() == std::size_t(n));
    for (index_t i = 0; i < n; ++i) {
      const auto j = index_t(idx[std::size_t(i)]);
      REQUIRE(j >= 0);
      REQUIRE(j < m);
      // the point found is a nearest one (float rounding may tie distinct j)
      CHECK(ref_dist2(hx, i, hy, j) <= best[std::size_t(i)] * (1 + 1e-5) + 1e-6);
    }
  }
}

/// Core and plain inputs and scalars in one call; double; D = 1; empty loops.
template <class Tg>
void check_mixed(std::uint64_t seed) {
  INFO("seed " << seed);
  const index_t n = 41;
  const auto hp = test::random_vector<double>(std::size_t(2 * n), seed);
  const auto hw = test::random_vector<double>(std::size_t(n), seed + 1);
  const auto Pp = test::make<Tg>(hp, {n, 2});
  const auto W = test::make<Tg>(hw, {n});
  const auto got = ufunc::vectorize<Tg>(weighted2{})(ufunc::vec<2>(Pp), W, 0.25).to_host();
  REQUIRE(got.size() == std::size_t(n));
  for (index_t i = 0; i < n; ++i) {
    const double want = (hp[std::size_t(2 * i)] - 2.0 * hp[std::size_t(2 * i + 1)]) * hw[std::size_t(i)] + 0.25;
    REQUIRE(test::close(got[std::size_t(i)], want, 1e-12, 1e-12));
  }
  // A reversed view along the loop axis.
  const auto rev = ufunc::vectorize<Tg>(weighted2{})(ufunc::vec<2>(Pp.view().sliced(0, n - 1, -n - 1, -1)), 1.0, 0.0).to_host();
  REQUIRE(rev.size() == std::size_t(n));
  for (index_t i = 0; i < n; ++i) {
    const index_t k = n - 1 - i;
    REQUIRE(test::close(rev[std::size_t(i)], hp[std::size_t(2 * k)] - 2.0 * hp[std::size_t(2 * k + 1)], 1e-12, 1e-12));
  }

  const auto hs = test::random_vector<float>(std::size_t(n), seed + 2);
  const auto S = test::make<Tg>(hs, {n, 1});
  const auto one = ufunc::vectorize<Tg>(first_of1{})(ufunc::vec<1>(S));
  CHECK(one.shape() == ufunc::shape{n});
  const auto h1 = one.to_host();
  for (index_t i = 0; i < n; ++i) REQUIRE(h1[std::size_t(i)] == 3.0f * hs[std::size_t(i)]);

  const ufunc::array<float, Tg> none(ufunc::shape{0, 3});
  const ufunc::array<float, Tg> y(ufunc::shape{1, 3});
  CHECK(ufunc::vectorize<Tg>(dist3{})(ufunc::vec<3>(none), ufunc::vec<3>(y)).shape() == ufunc::shape{0});
}

template <class Tg>
void check_errors() {
  const ufunc::array<float, Tg> x(ufunc::shape{4, 2}), y(ufunc::shape{4, 3}), z(ufunc::shape{5, 3});
  const ufunc::array<float, Tg> s0(ufunc::shape{});
  const auto dist = ufunc::vectorize<Tg>(dist3{});
  const auto m1 = test::message_of<ufunc::shape_error>([&] { (void)dist(ufunc::vec<3>(x), ufunc::vec<3>(y)); });
  CHECK(test::contains(m1, "input 0, ufunc::vec<3>, has shape (4,2)"));
  CHECK(test::contains(m1, "core dimension and must have 3 elements"));
  const auto m2 = test::message_of<ufunc::shape_error>([&] { (void)dist(ufunc::vec<3>(y), ufunc::vec<3>(s0)); });
  CHECK(test::contains(m2, "input 1, ufunc::vec<3>, is 0-d"));
  // Loop shapes (4) and (5) do not broadcast: the message names the shapes as
  // given and the core dimension, not the component views the call splits them into.
  const auto m4 = test::message_of<ufunc::shape_error>([&] { (void)dist(ufunc::vec<3>(y), ufunc::vec<3>(z)); });
  CHECK(test::contains(m4, "cannot broadcast (4,3) with (5,3): without the core dimensions (input 0: ufunc::vec<3>, "
                           "its last axis of 3; input 1: ufunc::vec<3>, its last axis of 3), the loop shapes (4,) "
                           "with (5,) do not broadcast"));
  CHECK(!test::contains(m4, "(4,) with (4,)"));
  CHECK(test::contains(test::message_of<ufunc::shape_error>([&] { (void)dist.lazy(ufunc::vec<3>(x), ufunc::vec<3>(y)); }),
                       "input 0, ufunc::vec<3>, has shape (4,2)"));
  const auto m5 = test::message_of<ufunc::shape_error>([&] { (void)dist.lazy(ufunc::vec<3>(z), ufunc::vec<3>(y)); });
  CHECK(test::contains(m5, "cannot broadcast (5,3) with (4,3)"));
  const auto r = ufunc::map_reduce(gauss_term{}, ufunc::plus{});
  const ufunc::array<float, Tg> b(ufunc::shape{4});
  const auto m3 = test::message_of<ufunc::shape_error>([&] { (void)r(ufunc::vec<3>(y), ufunc::vec<3>(x), b); });
  CHECK(test::contains(m3, "map_reduce: input 1, ufunc::vec<3>, has shape (4,2)"));
  // A plain input among vec inputs: named as given too, with the vec input's core dimension.
  const ufunc::array<float, Tg> b25(ufunc::shape{2, 5});
  const auto m6 = test::message_of<ufunc::shape_error>([&] { (void)r(ufunc::vec<3>(y), ufunc::vec<3>(y), b25); });
  CHECK(test::contains(m6, "map_reduce: cannot broadcast (4,3) with (4,3) with (2,5): without the core dimensions"));
  CHECK(test::contains(m6, "the loop shapes (4,) with (4,) with (2,5) do not broadcast"));
  const ufunc::array<float, Tg> w2(ufunc::shape{6, 2});
  const auto m7 = test::message_of<ufunc::shape_error>(
      [&] { (void)ufunc::vectorize<Tg>(first_plus{})(ufunc::vec<2>(w2), y); });
  CHECK(test::contains(m7, "cannot broadcast (6,2) with (4,3): without the core dimensions (input 0: ufunc::vec<2>, "
                           "its last axis of 2), the loop shapes (6,) with (4,3) do not broadcast"));
}

/// A custom operator with no identity (the larger value).
struct larger {
  UFUNC_HD float operator()(float a, float b) const { return a > b ? a : b; }
};
/// The Gaussian term over coordinates given as separate arrays (no vec).
struct gauss_term_soa {
  UFUNC_HD double operator()(double x0, double x1, double x2, double y0, double y1, double y2, double b) const {
    const double dx = x0 - y0, dy = x1 - y1, dz = x2 - y2;
    return exp(-0.5 * (dx * dx + dy * dy + dz * dz)) * b;
  }
};

/// Sizes and operators the tiled pairwise kernel takes on the GPU (several
/// tiles, split j ranges, outputs not a multiple of a block, both
/// orientations), against double loops: sums, minimum, a custom op without
/// identity, argmin, and seven plain coordinate arrays in double.
template <class Tg>
void check_pairwise(std::uint64_t seed, index_t n, index_t m) {
  INFO("seed " << seed << " n " << n << " m " << m);
  const auto hx = test::random_vector<float>(std::size_t(3 * n), seed, -2, 2);
  const auto hy = test::random_vector<float>(std::size_t(3 * m), seed + 1, -2, 2);
  const auto hb = test::random_vector<float>(std::size_t(m), seed + 2, -1, 1);
  std::vector<double> sum(std::size_t(n), 0.0), mag(std::size_t(n), 0.0), lo(std::size_t(n), 1e300), hi(std::size_t(n), -1e300);
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < m; ++j) {
      const double t = std::exp(-0.5 * ref_dist2(hx, i, hy, j)) * hb[std::size_t(j)];
      sum[std::size_t(i)] += t;
      mag[std::size_t(i)] += std::fabs(t);
      lo[std::size_t(i)] = std::min(lo[std::size_t(i)], t);
      hi[std::size_t(i)] = std::max(hi[std::size_t(i)], t);
    }
  for (int orient = 0; orient < 2; ++orient) {
    INFO("reduced axis " << orient);
    const auto X = orient ? test::make<Tg>(hx, {1, n, 3}) : test::make<Tg>(hx, {n, 1, 3});
    const auto Y = orient ? test::make<Tg>(hy, {m, 1, 3}) : test::make<Tg>(hy, {1, m, 3});
    const auto B = orient ? test::make<Tg>(hb, {m, 1}) : test::make<Tg>(hb, {1, m});
    const ufunc::axis ax(orient ? 0 : 1);
    const auto s = ufunc::map_reduce(gauss_term{}, ufunc::plus{})(ufunc::vec<3>(X), ufunc::vec<3>(Y), B, ax).to_host();
    const auto mn = ufunc::map_reduce(gauss_term{}, ufunc::minimum{})(ufunc::vec<3>(X), ufunc::vec<3>(Y), B, ax).to_host();
    const auto mx = ufunc::map_reduce(gauss_term{}, larger{})(ufunc::vec<3>(X), ufunc::vec<3>(Y), B, ax).to_host();
    REQUIRE(s.size() == std::size_t(n));
    REQUIRE(mn.size() == std::size_t(n));
    REQUIRE(mx.size() == std::size_t(n));
    for (index_t i = 0; i < n; ++i) {
      const auto k = std::size_t(i);
      REQUIRE(std::fabs(s[k] - sum[k]) <= 2e-6 * mag[k] + 1e-6);
      REQUIRE(std::fabs(mn[k] - lo[k]) <= 1e-6 * std::fabs(lo[k]) + 1e-7);
      REQUIRE(std::fabs(mx[k] - hi[k]) <= 1e-6 * std::fabs(hi[k]) + 1e-7);
    }
  }
  // Seven coordinate arrays in double, no vec: (n,1) against (1,m).
  std::vector<std::vector<double>> cx(3, std::vector<double>(std::size_t(n))), cy(3, std::vector<double>(std::size_t(m)));
  for (int c = 0; c < 3; ++c) {
    for (index_t i = 0; i < n; ++i) cx[std::size_t(c)][std::size_t(i)] = hx[std::size_t(3 * i + c)];
    for (index_t j = 0; j < m; ++j) cy[std::size_t(c)][std::size_t(j)] = hy[std::size_t(3 * j + c)];
  }
  std::vector<double> hbd(hb.begin(), hb.end());
  const auto X0 = test::make<Tg>(cx[0], {n, 1}), X1 = test::make<Tg>(cx[1], {n, 1}), X2 = test::make<Tg>(cx[2], {n, 1});
  const auto Y0 = test::make<Tg>(cy[0], {1, m}), Y1 = test::make<Tg>(cy[1], {1, m}), Y2 = test::make<Tg>(cy[2], {1, m});
  const auto Bd = test::make<Tg>(hbd, {1, m});
  const auto d = ufunc::map_reduce(gauss_term_soa{}, ufunc::plus{})(X0, X1, X2, Y0, Y1, Y2, Bd, ufunc::axis(1)).to_host();
  REQUIRE(d.size() == std::size_t(n));
  for (index_t i = 0; i < n; ++i) REQUIRE(std::fabs(d[std::size_t(i)] - sum[std::size_t(i)]) <= 1e-12 * mag[std::size_t(i)] + 1e-13);
}

/// Squared distance in 7 dimensions (a wide core dimension).
struct dist2_7 {
  UFUNC_HD double operator()(const cuda::std::array<double, 7>& a, const cuda::std::array<double, 7>& b) const {
    double s = 0;
    for (int k = 0; k < 7; ++k) s += (a[k] - b[k]) * (a[k] - b[k]);
    return s;
  }
};
/// Squared distance in 2 dimensions, integer coordinates: exact, so ties are real.
struct dist2_2i {
  UFUNC_HD int operator()(const cuda::std::array<int, 2>& a, const cuda::std::array<int, 2>& b) const {
    return (a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]);
  }
};
/// The first coordinate difference, NaN where either point has a NaN.
struct diff0 {
  UFUNC_HD float operator()(const cuda::std::array<float, 2>& a, const cuda::std::array<float, 2>& b) const {
    return (a[0] - b[0]) * (a[1] - b[1]);
  }
};

/// Nearest neighbours in 7-D (double) and in 2-D on a small integer grid (many
/// exact ties: the lowest j must win, as NumPy's argmin), argmax with NaN
/// values (the first NaN wins), sizes around a tile, prime and below one tile.
template <class Tg>
void check_pairwise_args(std::uint64_t seed, index_t n, index_t m) {
  INFO("seed " << seed << " n " << n << " m " << m);
  {
    const auto hx = test::random_vector<double>(std::size_t(7 * n), seed);
    const auto hy = test::random_vector<double>(std::size_t(7 * m), seed + 1);
    const auto X = test::make<Tg>(hx, {n, 1, 7});
    const auto Y = test::make<Tg>(hy, {1, m, 7});
    const auto nn = ufunc::argmin(ufunc::vectorize<Tg>(dist2_7{}).lazy(ufunc::vec<7>(X), ufunc::vec<7>(Y)), ufunc::axis(1)).to_host();
    REQUIRE(nn.size() == std::size_t(n));
    for (index_t i = 0; i < n; ++i) {
      index_t best = 0;
      double bd = 1e300;
      for (index_t j = 0; j < m; ++j) {
        double d = 0;
        for (int k = 0; k < 7; ++k) {
          const double e = hx[std::size_t(7 * i + k)] - hy[std::size_t(7 * j + k)];
          d += e * e;
        }
        if (d < bd) bd = d, best = j;
      }
      REQUIRE(nn[std::size_t(i)] == best);
    }
  }
  {
    const auto hx = test::random_vector<int>(std::size_t(2 * n), seed + 2, 0, 3);
    const auto hy = test::random_vector<int>(std::size_t(2 * m), seed + 3, 0, 3);
    // both orientations: (n,1,2)x(1,m,2) over axis 1 and (1,n,2)x(m,1,2) over axis 0
    for (int orient = 0; orient < 2; ++orient) {
      const auto X = orient ? test::make<Tg>(hx, {1, n, 2}) : test::make<Tg>(hx, {n, 1, 2});
      const auto Y = orient ? test::make<Tg>(hy, {m, 1, 2}) : test::make<Tg>(hy, {1, m, 2});
      const auto nn = ufunc::argmin(ufunc::vectorize<Tg>(dist2_2i{}).lazy(ufunc::vec<2>(X), ufunc::vec<2>(Y)),
                                    ufunc::axis(orient ? 0 : 1)).to_host();
      REQUIRE(nn.size() == std::size_t(n));
      for (index_t i = 0; i < n; ++i) {
        index_t best = 0;
        int bd = INT_MAX;
        for (index_t j = 0; j < m; ++j) {
          const int a = hx[std::size_t(2 * i)] - hy[std::size_t(2 * j)], b = hx[std::size_t(2 * i + 1)] - hy[std::size_t(2 * j + 1)];
          if (a * a + b * b < bd) bd = a * a + b * b, best = j;
        }
        REQUIRE(nn[std::size_t(i)] == best);
      }
    }
  }
  {
    auto hx = test::random_vector<float>(std::size_t(2 * n), seed + 4);
    auto hy = test::random_vector<float>(std::size_t(2 * m), seed + 5);
    std::mt19937_64 rng(seed + 6);
    for (int t = 0; t < 3; ++t) hy[std::size_t(rng() % std::uint64_t(2 * m))] = NAN;
    hx[std::size_t(rng() % std::uint64_t(2 * n))] = NAN;
    const auto X = test::make<Tg>(hx, {n, 1, 2});
    const auto Y = test::make<Tg>(hy, {1, m, 2});
    const auto am = ufunc::argmax(ufunc::vectorize<Tg>(diff0{}).lazy(ufunc::vec<2>(X), ufunc::vec<2>(Y)), ufunc::axis(1)).to_host();
    for (index_t i = 0; i < n; ++i) {
      index_t best = -1;
      float bv = 0;
      for (index_t j = 0; j < m; ++j) {
        const float v = (hx[std::size_t(2 * i)] - hy[std::size_t(2 * j)]) * (hx[std::size_t(2 * i + 1)] - hy[std::size_t(2 * j + 1)]);
        if (std::isnan(v)) { best = j; break; }
        if (best < 0 || v > bv) bv = v, best = j;
      }
      REQUIRE(am[std::size_t(i)] == best);
    }
  }
}

/// Runs check(target, seed, n, m) on every target for each size (n, m) of
/// `sizes`, with a fresh seed each time.
template <class Check>
void for_each_size(std::initializer_list<std::pair<index_t, index_t>> sizes, const Check& check) {
  test::for_each_target([&](auto tg) {
    for (auto nm : sizes) check(tg, test::fresh_seed(), nm.first, nm.second);
  });
}

}  // namespace

TEST_CASE("vec: ufunc calls and lazy nodes with core dimensions against serial loops") {
  for_each_size({{1, 1}, {7, 5}, {33, 130}, {300, 17}},
                [](auto tg, std::uint64_t seed, index_t n, index_t m) { check_vectorize<decltype(tg)>(seed, n, m); });
  test::for_each_target([](auto tg) { check_mixed<decltype(tg)>(test::fresh_seed()); });
}

TEST_CASE("vec: kernel sums and nearest neighbours over pairs (map_reduce, argmin of a lazy node)") {
  for_each_size({{1, 1}, {5, 9}, {64, 1000}, {257, 301}, {1000, 3}},
                [](auto tg, std::uint64_t seed, index_t n, index_t m) { check_reduce<decltype(tg)>(seed, n, m); });
}

TEST_CASE("vec: shape errors name the core dimension") {
  test::for_each_target([](auto tg) { check_errors<decltype(tg)>(); });
}

TEST_CASE("vec: pairwise reductions at the tiled kernel's sizes (tiles, split ranges, both orientations, ops)") {
  for_each_size({{64, 60000}, {1000, 3000}, {4099, 700}, {300, 256}, {2, 5000}},
                [](auto tg, std::uint64_t seed, index_t n, index_t m) { check_pairwise<decltype(tg)>(seed, n, m); });
}

TEST_CASE("vec: pairwise argmin/argmax (7-D, exact ties: lowest j, NaN: first), prime sizes and below one tile") {
  for_each_size({{97, 257}, {1031, 509}, {70, 255}, {600, 3001}, {257, 20011}},
                [](auto tg, std::uint64_t seed, index_t n, index_t m) { check_pairwise_args<decltype(tg)>(seed, n, m); });
}
