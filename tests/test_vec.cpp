// ufunc::vec<D>: inputs whose last axis is a core dimension, passed to the
// function as cuda::std::array<T, D>, in ufunc calls, lazy expressions and
// map_reduce/argmin, against serial double-precision loops on fresh random data.
#include "test_support.hpp"

#include <cuda/std/array>

namespace {

using ufunc::index_t;
using P3 = cuda::std::array<float, 3>;

struct dist3 {
  UFUNC_HD float operator()(const P3& a, const P3& b) const {
    const float dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    return sqrtf(dx * dx + dy * dy + dz * dz);
  }
};
struct dist2_3 {
  UFUNC_HD float operator()(const P3& a, const P3& b) const {
    const float dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    return dx * dx + dy * dy + dz * dz;
  }
};
/// exp(-|x - y|^2 / 2) * b: a Gaussian kernel sum's term.
struct gauss_term {
  UFUNC_HD float operator()(const P3& x, const P3& y, float b) const {
    const float dx = x[0] - y[0], dy = x[1] - y[1], dz = x[2] - y[2];
    return expf(-0.5f * (dx * dx + dy * dy + dz * dz)) * b;
  }
};
/// A weighted 2-D point against a plain weight and a scalar: mixes core and
/// plain inputs in one call (and double coordinates).
struct weighted2 {
  UFUNC_HD double operator()(const cuda::std::array<double, 2>& p, double w, double s) const {
    return (p[0] - 2.0 * p[1]) * w + s;
  }
};
struct first_of1 {
  UFUNC_HD float operator()(const cuda::std::array<float, 1>& p) const { return 3.0f * p[0]; }
};

double ref_dist2(const std::vector<float>& x, index_t i, const std::vector<float>& y, index_t j) {
  double s = 0;
  for (int k = 0; k < 3; ++k) {
    const double d = double(x[std::size_t(3 * i + k)]) - double(y[std::size_t(3 * j + k)]);
    s += d * d;
  }
  return s;
}

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
  // Loop shapes (4) and (5) do not broadcast.
  CHECK(!test::message_of<ufunc::shape_error>([&] { (void)dist(ufunc::vec<3>(y), ufunc::vec<3>(z)); }).empty());
  CHECK(!test::message_of<ufunc::shape_error>([&] { (void)dist.lazy(ufunc::vec<3>(x), ufunc::vec<3>(y)); }).empty());
  const auto r = ufunc::map_reduce(gauss_term{}, ufunc::plus{});
  const ufunc::array<float, Tg> b(ufunc::shape{4});
  const auto m3 = test::message_of<ufunc::shape_error>([&] { (void)r(ufunc::vec<3>(y), ufunc::vec<3>(x), b); });
  CHECK(test::contains(m3, "map_reduce: input 1, ufunc::vec<3>, has shape (4,2)"));
}

}  // namespace

TEST_CASE("vec: ufunc calls and lazy nodes with core dimensions against serial loops") {
  test::for_each_target([](auto tg) {
    using Tg = decltype(tg);
    for (auto nm : {std::pair<index_t, index_t>{1, 1}, {7, 5}, {33, 130}, {300, 17}})
      check_vectorize<Tg>(test::fresh_seed(), nm.first, nm.second);
    check_mixed<Tg>(test::fresh_seed());
  });
}

TEST_CASE("vec: kernel sums and nearest neighbours over pairs (map_reduce, argmin of a lazy node)") {
  test::for_each_target([](auto tg) {
    using Tg = decltype(tg);
    for (auto nm : {std::pair<index_t, index_t>{1, 1}, {5, 9}, {64, 1000}, {257, 301}, {1000, 3}})
      check_reduce<Tg>(test::fresh_seed(), nm.first, nm.second);
  });
}

TEST_CASE("vec: shape errors name the core dimension") {
  test::for_each_target([](auto tg) { check_errors<decltype(tg)>(); });
}
