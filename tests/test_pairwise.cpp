// Pairwise reductions (x_i against y_j: the blocked host loops of
// detail/host/reduce_pairwise.hpp and the GPU's tiled kernel) at sizes that
// are not multiples of their blocks, tiles and runs, both orientations, vec<3>
// and plain (N,1) x (1,M) inputs, lazy sources, keepdims and out, NaN rows, and
// an order-sensitive custom op; against independent double-precision loops on
// fresh random data. Coordinates on a grid of quarters make squared distances
// exact in float (on the GPU too, FMA or not), so extrema and arg* compare
// exactly and ties are frequent (the lowest j must win, as NumPy's argmin).
#include "pairwise_support.hpp"

#include <omp.h>

namespace {

using ufunc::index_t;
using test::dist2_3;
using test::P3;
using test::ref_dist2;

/// exp(-|x - y|^2 / 8) * b.
struct gauss3 {
  UFUNC_HD float operator()(const P3& x, const P3& y, float b) const { return expf(-0.125f * dist2_3{}(x, y)) * b; }
};
/// |x - y|^2 * b: exact in float for grid values.
struct dist2b3 {
  UFUNC_HD float operator()(const P3& x, const P3& y, float b) const { return dist2_3{}(x, y) * b; }
};
/// One coordinate: (x - y)^2 * b, exact for grid values.
struct dist2b1 {
  UFUNC_HD double operator()(double x, double y, double b) const { return (x - y) * (x - y) * b; }
};
/// Associative, not commutative, no identity: the first (Left) or last element.
/// The library asks ops to be commutative too; the host engines keep the
/// element order anyway (documented in detail/host/reduce_pairwise.hpp), so the
/// host target is held to it and the order of runs and tiles is checked.
template <bool Left>
struct keep {
  UFUNC_HD float operator()(float a, float b) const { return Left ? a : b; }
};
/// A custom op without identity, associative and commutative: the value of
/// largest magnitude, the positive one on a tie of magnitudes.
struct abs_max {
  UFUNC_HD float operator()(float a, float b) const {
    const float fa = a < 0 ? -a : a, fb = b < 0 ? -b : b;
    return fa > fb || (fa == fb && a > b) ? a : b;
  }
};

/// Values k / 4 for integers k in [-40, 40]: sums of three squared differences
/// (at most 3 * 20^2 = 1200, in quarters squared: 1/16 steps) are exact in float.
std::vector<float> grid(std::size_t n, std::uint64_t seed) {
  auto v = test::random_vector<int>(n, seed, -40, 40);
  std::vector<float> f(n);
  for (std::size_t i = 0; i < n; ++i) f[i] = static_cast<float>(v[i]) / 4.0f;
  return f;
}

/// NumPy's argmin/argmax of row i (first NaN, else first extremum).
template <class F>
index_t ref_arg(index_t m, const F& value, bool max) {
  index_t best = 0;
  double bv = value(0);
  if (std::isnan(bv)) return 0;
  for (index_t j = 1; j < m; ++j) {
    const double v = value(j);
    if (std::isnan(v)) return j;
    if (max ? v > bv : v < bv) bv = v, best = j;
  }
  return best;
}

/// vec<3> points, both orientations: a Gaussian kernel sum (against double,
/// within a log-M bound), maximum, minimum and a custom op without identity of
/// an exact map, keep-first and keep-last on the host (order), argmin/argmax
/// with ties, keepdims and out.
template <class Tg>
void check_vec3(std::uint64_t seed, index_t n, index_t m) {
  INFO("seed " << seed << " n " << n << " m " << m);
  const auto hx = grid(std::size_t(3 * n), seed), hy = grid(std::size_t(3 * m), seed + 1);
  auto hb = grid(std::size_t(m), seed + 2);
  std::vector<double> sum(std::size_t(n), 0.0), mag(std::size_t(n), 0.0);
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < m; ++j) {
      const double t = std::exp(-0.125 * ref_dist2(hx, i, hy, j)) * hb[std::size_t(j)];
      sum[std::size_t(i)] += t;
      mag[std::size_t(i)] += std::fabs(t);
    }
  auto exact = [&](index_t i, index_t j) { return ref_dist2(hx, i, hy, j) * hb[std::size_t(j)]; };
  // float terms: a few eps each; the sum: a serial run plus log2 of the runs.
  const double bound = (48.0 + std::log2(double(m) + 1.0)) * 6e-8;
  for (int orient = 0; orient < 2; ++orient) {
    INFO("reduced axis " << (orient ? 0 : 1));
    const auto X = orient ? test::make<Tg>(hx, {1, n, 3}) : test::make<Tg>(hx, {n, 1, 3});
    const auto Y = orient ? test::make<Tg>(hy, {m, 1, 3}) : test::make<Tg>(hy, {1, m, 3});
    const auto B = orient ? test::make<Tg>(hb, {m, 1}) : test::make<Tg>(hb, {1, m});
    const ufunc::axis ax(orient ? 0 : 1);
    const auto vx = ufunc::vec<3>(X), vy = ufunc::vec<3>(Y);
    const auto s = ufunc::map_reduce(gauss3{}, ufunc::plus{})(vx, vy, B, ax).to_host();
    const auto mx = ufunc::map_reduce(dist2b3{}, ufunc::maximum{})(vx, vy, B, ax).to_host();
    const auto am = ufunc::map_reduce(dist2b3{}, abs_max{})(vx, vy, B, ax).to_host();
    constexpr bool host = std::is_same_v<Tg, ufunc::target::host>;
    std::vector<float> first, last;
    if constexpr (host) {
      first = ufunc::map_reduce(dist2b3{}, keep<true>{})(vx, vy, B, ax).to_host();
      last = ufunc::map_reduce(dist2b3{}, keep<false>{})(vx, vy, B, ax).to_host();
    }
    const auto e = ufunc::vectorize<Tg>(dist2_3{}).lazy(vx, vy);
    const auto amin = ufunc::argmin(e, ax).to_host();
    const auto amax = ufunc::argmax(e, ax).to_host();
    // keepdims into out: (n, 1) or (1, n).
    auto mn = ufunc::empty<float, Tg>(orient ? ufunc::shape{1, n} : ufunc::shape{n, 1});
    ufunc::map_reduce(dist2b3{}, ufunc::minimum{})(vx, vy, B, ax, ufunc::keepdims, ufunc::out(mn));
    const auto hmn = mn.to_host();
    REQUIRE(s.size() == std::size_t(n));
    REQUIRE(amin.size() == std::size_t(n));
    REQUIRE(hmn.size() == std::size_t(n));
    for (index_t i = 0; i < n; ++i) {
      const auto k = std::size_t(i);
      INFO("output " << i);
      CHECK(std::fabs(s[k] - sum[k]) <= bound * mag[k] + 1e-30);
      double hi = exact(i, 0), lo = hi;
      for (index_t j = 1; j < m; ++j) hi = std::max(hi, exact(i, j)), lo = std::min(lo, exact(i, j));
      CHECK(double(mx[k]) == hi);
      CHECK(double(hmn[k]) == lo);
      double big = exact(i, 0);
      for (index_t j = 1; j < m; ++j) {
        const double v = exact(i, j);
        if (std::fabs(v) > std::fabs(big) || (std::fabs(v) == std::fabs(big) && v > big)) big = v;
      }
      CHECK(double(am[k]) == big);
      if (host) {
        CHECK(double(first[k]) == exact(i, 0));
        CHECK(double(last[k]) == exact(i, m - 1));
      }
      CHECK(amin[k] == ref_arg(m, [&](index_t j) { return ref_dist2(hx, i, hy, j); }, false));
      CHECK(amax[k] == ref_arg(m, [&](index_t j) { return ref_dist2(hx, i, hy, j); }, true));
    }
  }
}

/// Plain (n,1) x (1,m) inputs in double (and the transposed (m,1) x (1,n) over
/// axis 0), with the weights a strided view; NaN rows: a NaN y_j makes every
/// sum and maximum NaN and is every argmin's answer from its first position;
/// a NaN x_i makes output i NaN (argmin 0).
template <class Tg>
void check_plain_nan(std::uint64_t seed, index_t n, index_t m) {
  INFO("seed " << seed << " n " << n << " m " << m);
  auto hx = grid(std::size_t(n), seed);
  auto hy = grid(std::size_t(m), seed + 1);
  const auto hb = grid(std::size_t(2 * m), seed + 2);  // every other one is used
  std::mt19937_64 rng(seed + 3);
  const bool nan_y = rng() % 2 == 0;
  if (nan_y) hy[std::size_t(rng() % std::uint64_t(m))] = NAN, hy[std::size_t(rng() % std::uint64_t(m))] = NAN;
  hx[std::size_t(rng() % std::uint64_t(n))] = NAN;
  std::vector<double> dx(hx.begin(), hx.end()), dy(hy.begin(), hy.end()), db(hb.begin(), hb.end());
  auto t = [&](index_t i, index_t j) {
    return (dx[std::size_t(i)] - dy[std::size_t(j)]) * (dx[std::size_t(i)] - dy[std::size_t(j)]) * db[std::size_t(2 * j)];
  };
  for (int orient = 0; orient < 2; ++orient) {
    INFO("reduced axis " << (orient ? 0 : 1) << " nan in y " << nan_y);
    const auto X = orient ? test::make<Tg>(dx, {1, n}) : test::make<Tg>(dx, {n, 1});
    const auto Y = orient ? test::make<Tg>(dy, {m, 1}) : test::make<Tg>(dy, {1, m});
    const auto Bfull = orient ? test::make<Tg>(db, {2 * m, 1}) : test::make<Tg>(db, {1, 2 * m});
    const auto B = Bfull.view().sliced(orient ? 0 : 1, 0, 2 * m, 2);
    const ufunc::axis ax(orient ? 0 : 1);
    const auto s = ufunc::map_reduce(dist2b1{}, ufunc::plus{})(X, Y, B, ax).to_host();
    const auto mx = ufunc::map_reduce(dist2b1{}, ufunc::maximum{})(X, Y, B, ax).to_host();
    const auto e = ufunc::vectorize<Tg>(dist2b1{}).lazy(X, Y, B);
    const auto amin = ufunc::argmin(e, ax).to_host();
    const auto amax = ufunc::argmax(e, ax).to_host();
    REQUIRE(s.size() == std::size_t(n));
    for (index_t i = 0; i < n; ++i) {
      const auto k = std::size_t(i);
      INFO("output " << i);
      double sum = 0, mag = 0, hi = t(i, 0);
      for (index_t j = 0; j < m; ++j) {
        sum += t(i, j);
        mag += std::fabs(t(i, j));
        if (std::isnan(hi) || std::isnan(t(i, j)))
          hi = NAN;
        else
          hi = std::max(hi, t(i, j));
      }
      if (std::isnan(sum)) {
        CHECK(std::isnan(s[k]));
      } else {
        CHECK(std::fabs(s[k] - sum) <= (48.0 + std::log2(double(m) + 1.0)) * 1.2e-16 * mag);
      }
      CHECK(std::isnan(mx[k]) == std::isnan(hi));
      if (!std::isnan(hi)) CHECK(mx[k] == hi);
      CHECK(amin[k] == ref_arg(m, [&](index_t j) { return t(i, j); }, false));
      CHECK(amax[k] == ref_arg(m, [&](index_t j) { return t(i, j); }, true));
    }
  }
}

/// The host engine splits the outputs alone over threads: the same bytes at 1,
/// 2 and the environment's thread count (no more than it: a ThreadSanitizer run
/// with GCC's libgomp limits the threads to 1, since TSan cannot see libgomp's
/// barriers; CI also runs the whole suite at 1, 2 and 16 threads).
void check_thread_counts(std::uint64_t seed) {
  INFO("seed " << seed);
  const index_t n = 300, m = 2500;
  const auto hx = test::random_vector<float>(std::size_t(3 * n), seed, -2, 2);
  const auto hy = test::random_vector<float>(std::size_t(3 * m), seed + 1, -2, 2);
  const auto hb = test::random_vector<float>(std::size_t(m), seed + 2, -1, 1);
  using H = ufunc::target::host;
  const auto X = test::make<H>(hx, {n, 1, 3});
  const auto Y = test::make<H>(hy, {1, m, 3});
  const auto B = test::make<H>(hb, {1, m});
  const int before = omp_get_max_threads();
  std::vector<std::vector<float>> got;
  for (int threads : {1, 2, before}) {
    if (threads > before) continue;
    omp_set_num_threads(threads);
    got.push_back(ufunc::map_reduce(gauss3{}, ufunc::plus{})(ufunc::vec<3>(X), ufunc::vec<3>(Y), B, ufunc::axis(1)).to_host());
  }
  omp_set_num_threads(before);
  REQUIRE(!got.empty());
  REQUIRE(got[0].size() == std::size_t(n));
  for (std::size_t r = 1; r < got.size(); ++r) CHECK(std::memcmp(got[0].data(), got[r].data(), sizeof(float) * std::size_t(n)) == 0);
}

// The host engine takes 16 outputs or more (blocks of up to 64, groups of 4,
// j tiles of 512, runs of 32); fewer go through the general loops.
const std::pair<index_t, index_t> sizes[] = {{1, 1},   {1, 7},       {7, 1},      {7, 255},  {255, 7},  {16, 31},
                                             {65, 33}, {130, 1025}, {1000, 513}, {3, 4099}, {17, 1000}, {257, 1500}};

}  // namespace

TEST_CASE("pairwise: vec<3> sums, extrema, ordered custom ops and arg* at ragged sizes, both orientations") {
  test::for_each_target([](auto tg) {
    using Tg = decltype(tg);
    for (auto nm : sizes) check_vec3<Tg>(test::fresh_seed(), nm.first, nm.second);
  });
}

TEST_CASE("pairwise: plain (N,1) x (1,M) inputs, strided weights, NaN rows") {
  test::for_each_target([](auto tg) {
    using Tg = decltype(tg);
    for (auto nm : sizes) check_plain_nan<Tg>(test::fresh_seed(), nm.first, nm.second);
  });
}

TEST_CASE("pairwise: host results do not depend on the thread count") { check_thread_counts(test::fresh_seed()); }
