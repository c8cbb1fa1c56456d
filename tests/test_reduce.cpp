// Reductions: reduce/map_reduce over whole arrays and any set of axes, the
// conveniences, out, keepdims, views, identities and their absence, NaN, float
// accuracy, errors, and the ufunc methods reduce/accumulate/outer. References
// are computed here by index math over host copies, in double precision.
#include "test_support.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <type_traits>
#include <vector>

using test::ref_operand;
using ufunc::index_t;
using ufunc::shape;

namespace {

/// The elements each output of a reduction combines, in row-major order of the
/// reduced dims (so a position in a group is argmin's index). `op` describes
/// where element (i0, i1, ...) of `full` lives in `base`.
template <class T>
std::vector<std::vector<T>> groups(const std::vector<T>& base, const ref_operand& op, const std::vector<index_t>& full,
                                   const std::vector<bool>& red) {
  std::vector<index_t> kept;
  for (std::size_t d = 0; d < full.size(); ++d)
    if (!red[d]) kept.push_back(full[d]);
  const auto kst = test::row_major(kept);
  std::vector<std::vector<T>> g(static_cast<std::size_t>(test::count_of(kept)));
  for (index_t i = 0, n = test::count_of(full); i < n; ++i) {
    const auto idx = test::unravel(i, full);
    index_t o = 0;
    for (std::size_t d = 0, k = 0; d < full.size(); ++d)
      if (!red[d]) o += idx[d] * kst[k++];
    g[static_cast<std::size_t>(o)].push_back(base[static_cast<std::size_t>(test::bcast_offset(idx, op))]);
  }
  return g;
}

std::vector<index_t> result_dims(const std::vector<index_t>& full, const std::vector<bool>& red, bool keep) {
  std::vector<index_t> r;
  for (std::size_t d = 0; d < full.size(); ++d)
    if (!red[d] || keep) r.push_back(red[d] ? 1 : full[d]);
  return r;
}

double dsum(const std::vector<float>& g) {
  double s = 0;
  for (float v : g) s += v;
  return s;
}
double dabs_sum(const std::vector<float>& g) {
  double s = 0;
  for (float v : g) s += std::fabs(v);
  return s;
}

/// Bound for a float sum of `n` terms in any tree order whose leaves are short
/// serial runs: (log2 n + leaf) * u * sum|x| (Higham, pairwise summation).
double tree_bound(std::size_t n, double abs_sum) {
  const double u = std::ldexp(1.0, -24);
  return (std::ceil(std::log2(std::max<double>(2, static_cast<double>(n)))) + 2) * u * abs_sum + 1e-30;
}

struct abs_f {
  UFUNC_HD float operator()(float v) const { return std::fabs(v); }
};
struct mul_f {
  UFUNC_HD float operator()(float a, float b) const { return a * b; }
};
struct max_f {
  UFUNC_HD float operator()(float a, float b) const { return a > b ? a : b; }
};
struct add_f {
  UFUNC_HD float operator()(float a, float b) const { return a + b; }
};
struct add_i {
  UFUNC_HD long long operator()(long long a, long long b) const { return a + b; }
};
struct sub_d {
  UFUNC_HD double operator()(float a, double b) const { return a - b; }
};
struct sq_diff {
  UFUNC_HD double operator()(float a, float b) const { return double(a - b) * double(a - b); }
};

template <class Fn>
void expect_throws_with(Fn fn, const char* part) {
  bool thrown = false;
  try {
    fn();
  } catch (const std::invalid_argument& e) {
    thrown = true;
    INFO("message: " << std::string(e.what()) << "; expected to contain: " << part);
    CHECK(test::contains(e.what(), part));
  }
  CHECK(thrown);
}

}  // namespace

TEST_CASE("reduce: whole-array sum, prod, min, max, mean against a double reference, many sizes") {
  for (index_t n : {1, 2, 3, 7, 31, 32, 33, 1000, 4097, 65536, 100003, 1 << 20}) {
    const auto seed = test::fresh_seed();
    INFO("n = " << n << ", seed " << seed);
    const auto h = test::random_vector<float>(static_cast<std::size_t>(n), seed, -2.0, 2.0);
    const auto x = ufunc::to_device(h);
    const double ref = dsum(h), absref = dabs_sum(h);
    const float s = ufunc::sum(x);
    static_assert(std::is_same_v<decltype(ufunc::sum(x)), float>);
    CHECK(std::fabs(s - ref) <= tree_bound(h.size(), absref));
    CHECK(ufunc::min(x) == *std::min_element(h.begin(), h.end()));
    CHECK(ufunc::max(x) == *std::max_element(h.begin(), h.end()));
    const float m = ufunc::mean(x);
    static_assert(std::is_same_v<decltype(ufunc::mean(x)), float>);
    CHECK(std::fabs(m - ref / n) <= tree_bound(h.size(), absref) / n + 1e-7);
    // A product near 1: factors in [0.999, 1.001].
    std::vector<double> hp(static_cast<std::size_t>(std::min<index_t>(n, 4097)));
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> d(0.999, 1.001);
    double pref = 1;
    for (auto& v : hp) pref *= (v = d(rng));
    CHECK(ufunc::prod(ufunc::to_device(hp)) == doctest::Approx(pref).epsilon(1e-12));
  }
}

TEST_CASE("reduce: integer and logical ops with their identities") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  for (index_t n : {1, 5, 1000, 70001}) {
    auto h = test::random_vector<int>(static_cast<std::size_t>(n), seed, -1000, 1000);
    const auto x = ufunc::to_device(h);
    long long s = 0;
    int mn = h[0], mx = h[0], band = ~0, bor = 0, bxor = 0;
    for (int v : h) s += v, mn = std::min(mn, v), mx = std::max(mx, v), band &= v, bor |= v, bxor ^= v;
    CHECK(ufunc::sum(x) == s);
    CHECK(ufunc::reduce(ufunc::minimum{})(x) == mn);
    CHECK(ufunc::reduce(ufunc::maximum{})(x) == mx);
    CHECK(ufunc::reduce(ufunc::bit_and{})(x) == band);
    CHECK(ufunc::reduce(ufunc::bit_or{})(x) == bor);
    CHECK(ufunc::reduce(ufunc::bit_xor{})(x) == bxor);
    // Sum of int in int64 (accumulator override).
    static_assert(std::is_same_v<decltype(ufunc::reduce<long long>(ufunc::plus{})(x)), long long>);
    CHECK(ufunc::reduce<long long>(ufunc::plus{})(x) == s);
    const double mref = static_cast<double>(s) / static_cast<double>(n);
    static_assert(std::is_same_v<decltype(ufunc::mean(x)), double>);
    CHECK(ufunc::mean(x) == doctest::Approx(mref).epsilon(1e-12));
    std::vector<char> flags(static_cast<std::size_t>(n), 1);
    const auto all_true = ufunc::to_device(flags);
    CHECK(ufunc::reduce(ufunc::logical_and{})(all_true) == true);
    CHECK(ufunc::reduce(ufunc::logical_or{})(all_true) == true);
    flags[static_cast<std::size_t>(n / 2)] = 0;
    CHECK(ufunc::reduce(ufunc::logical_and{})(ufunc::to_device(flags)) == false);
    std::fill(flags.begin(), flags.end(), 0);
    CHECK(ufunc::reduce(ufunc::logical_or{})(ufunc::to_device(flags)) == false);
  }
}

TEST_CASE("reduce: a custom op without init reduces the elements themselves (no init = 0)") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  for (index_t n : {1, 2, 100, 300001}) {
    const auto h = test::random_vector<float>(static_cast<std::size_t>(n), seed, -100.0, -1.0);  // all negative
    const auto x = ufunc::to_device(h);
    const auto big = ufunc::reduce(max_f{});
    CHECK(big(x) == *std::max_element(h.begin(), h.end()));
    // With init, the init takes part once (NumPy's `initial`).
    CHECK(ufunc::reduce(max_f{}, -0.5f)(x) == -0.5f);
    CHECK(ufunc::reduce(max_f{}, -1000.0f)(x) == *std::max_element(h.begin(), h.end()));
    // Along an axis too: (n, 3) -> max per column.
    std::vector<float> m(static_cast<std::size_t>(n) * 3);
    for (std::size_t i = 0; i < m.size(); ++i) m[i] = h[i / 3] - static_cast<float>(i % 3);
    const auto r = big(ufunc::to_device(m, {n, 3}), ufunc::axis(0)).to_host();
    const float hm = *std::max_element(h.begin(), h.end());
    CHECK(r == std::vector<float>{hm, hm - 1, hm - 2});
  }
  // Empty input: no identity -> value_error; with init or identity -> that value.
  const auto empty = ufunc::empty<float>({0});
  CHECK_THROWS_AS(ufunc::reduce(max_f{})(empty), ufunc::value_error);
  CHECK_THROWS_AS(ufunc::reduce(max_f{})(empty), std::invalid_argument);
  CHECK_THROWS_AS(ufunc::min(empty), ufunc::value_error);
  CHECK_THROWS_AS(ufunc::argmax(empty), ufunc::value_error);
  CHECK(ufunc::reduce(max_f{}, 7.0f)(empty) == 7.0f);
  CHECK(ufunc::sum(empty) == 0.0f);
  CHECK(ufunc::prod(empty) == 1.0f);
  CHECK(ufunc::reduce(ufunc::minimum{})(empty) == std::numeric_limits<float>::infinity());
  CHECK(std::isnan(ufunc::mean(empty)));
  // Empty reduced axis of a (3, 0) array: value per output, or value_error.
  const auto e2 = ufunc::empty<float>({3, 0});
  CHECK(ufunc::sum(e2, ufunc::axis(1)).to_host() == std::vector<float>{0, 0, 0});
  CHECK(ufunc::sum(e2, ufunc::axis(0)).shape() == shape(0));
  CHECK_THROWS_AS(ufunc::max(e2, ufunc::axis(1)), ufunc::value_error);
  CHECK(ufunc::max(e2, ufunc::axis(0)).shape() == shape(0));  // nothing to reduce into: no error
}

TEST_CASE("reduce: the accumulator type follows the op, or the one asked for") {
  // Float input accumulated in double: 1 + many tiny terms that float would drop.
  std::vector<float> h(100000, 1e-8f);
  h[0] = 1.0f;
  const auto x = ufunc::to_device(h);
  double ref = 0;
  for (float v : h) ref += v;
  const auto d = ufunc::reduce<double>(ufunc::plus{})(x);
  static_assert(std::is_same_v<decltype(d), const double>);
  CHECK(d == doctest::Approx(ref).epsilon(1e-12));
  CHECK(ufunc::sum(x) == doctest::Approx(ref).epsilon(1e-6));
  // The op's result type on the mapped values: a map to double accumulates in
  // double; an init of another type does not change the accumulator.
  static_assert(std::is_same_v<decltype(ufunc::map_reduce(sq_diff{}, ufunc::plus{})(x, 0.0f)), double>);
  static_assert(std::is_same_v<decltype(ufunc::reduce(ufunc::multiplies{}, 1.0)(x)), float>);
}

TEST_CASE("map_reduce: abs-sum and dot products are fused maps over broadcast inputs") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  for (index_t n : {1, 3, 1000, 262147}) {
    const auto h = test::random_vector<float>(static_cast<std::size_t>(n), seed);
    const auto h2 = test::random_vector<float>(static_cast<std::size_t>(n), seed + 1);
    const auto x = ufunc::to_device(h), y = ufunc::to_device(h2);
    const auto abs_sum = ufunc::map_reduce(abs_f{}, ufunc::plus{});
    CHECK(std::fabs(abs_sum(x) - dabs_sum(h)) <= tree_bound(h.size(), dabs_sum(h)));
    const auto dot = ufunc::map_reduce(mul_f{}, ufunc::plus{});
    double dref = 0, dabs = 0;
    for (std::size_t i = 0; i < h.size(); ++i) dref += double(h[i]) * h2[i], dabs += std::fabs(double(h[i]) * h2[i]);
    CHECK(std::fabs(dot(x, y) - dref) <= tree_bound(h.size(), dabs) + 4 * std::ldexp(1.0, -24) * dabs);
    // A scalar input broadcasts: sum((x - 0.5)^2) in double.
    const auto ssq = ufunc::map_reduce(sq_diff{}, ufunc::plus{});
    double sref = 0;
    for (float v : h) sref += double(v - 0.5f) * double(v - 0.5f);
    CHECK(ssq(x, 0.5f) == doctest::Approx(sref).epsilon(1e-10));
  }
  // Broadcasting (4,1) with (3,): sum over the (4,3) products, and per row.
  const std::vector<float> a{1, 2, 3, 4}, b{10, 20, 30};
  const auto A = ufunc::to_device(a, {4, 1}), B = ufunc::to_device(b);
  const auto dot = ufunc::map_reduce(mul_f{}, ufunc::plus{});
  CHECK(dot(A, B) == 600.0f);
  CHECK(dot(A, B, ufunc::axis(1)).to_host() == std::vector<float>{60, 120, 180, 240});
  CHECK(dot(A, B, ufunc::axis(0)).to_host() == std::vector<float>{100, 200, 300});
  CHECK_THROWS_AS(dot(B, ufunc::to_device(std::vector<float>{1, 2})), ufunc::shape_error);
}

TEST_CASE("reduce: any set of axes of random N-d arrays, with keepdims, against index math") {
  std::mt19937_64 rng(test::fresh_seed());
  for (int iter = 0; iter < 60; ++iter) {
    std::vector<index_t> dims;
    for (int d = 0, r = 1 + static_cast<int>(rng() % 4); d < r; ++d)
      dims.push_back(1 + static_cast<index_t>(rng() % (iter < 50 ? 6 : 40)));
    if (iter == 59) dims = {3, 2049, 5};  // long reduced rows and columns
    const int rank = static_cast<int>(dims.size());
    std::vector<bool> red(dims.size());
    std::vector<int> ax;
    for (int d = 0; d < rank; ++d)
      if (rng() % 2) red[static_cast<std::size_t>(d)] = true, ax.push_back(rng() % 2 ? d : d - rank);
    const bool keep = rng() % 2;
    const auto seed = test::fresh_seed();
    INFO("dims " << test::dims_str(dims) << " axes " << ufunc::detail::axes_str(&ax) << " keepdims " << keep
                 << " seed " << seed);
    const auto h = test::random_vector<float>(static_cast<std::size_t>(test::count_of(dims)), seed);
    const auto x = ufunc::to_device(h, shape(dims));
    const auto g = groups(h, test::contiguous(dims), dims, red);
    const auto want_shape = shape(result_dims(dims, red, keep));
    auto s = keep ? ufunc::sum(x, ufunc::axes(ax), ufunc::keepdims) : ufunc::sum(x, ufunc::axes(ax));
    auto mx = keep ? ufunc::max(x, ufunc::axes(ax), ufunc::keepdims) : ufunc::max(x, ufunc::axes(ax));
    REQUIRE(s.shape() == want_shape);
    REQUIRE(mx.shape() == want_shape);
    const auto hs = s.to_host(), hm = mx.to_host();
    std::size_t bad = 0;
    for (std::size_t o = 0; o < g.size(); ++o) {
      bad += std::fabs(hs[o] - dsum(g[o])) > tree_bound(g[o].size(), dabs_sum(g[o])) + 1e-6;
      bad += hm[o] != *std::max_element(g[o].begin(), g[o].end());
    }
    CHECK(bad == 0);
    // argmin along one axis: the position within the reduced axis.
    const int a = static_cast<int>(rng() % static_cast<unsigned>(rank));
    std::vector<bool> one(dims.size());
    one[static_cast<std::size_t>(a)] = true;
    const auto g1 = groups(h, test::contiguous(dims), dims, one);
    const auto am = ufunc::argmin(x, ufunc::axis(a)).to_host();
    static_assert(std::is_same_v<decltype(am), const std::vector<index_t>>);
    REQUIRE(am.size() == g1.size());
    bad = 0;
    for (std::size_t o = 0; o < g1.size(); ++o)
      bad += am[o] != std::min_element(g1[o].begin(), g1[o].end()) - g1[o].begin();
    CHECK(bad == 0);
  }
}

TEST_CASE("reduce: the 2-D cases the kernels specialise: rows, columns, short and long, few and many") {
  const std::vector<std::vector<index_t>> cases = {{1, 1},     {1, 5000},   {5000, 1},  {7, 3},      {3, 100000},
                                                   {100000, 3}, {64, 2048}, {2048, 64}, {2, 1 << 20}, {1 << 20, 2},
                                                   {513, 257},  {17, 70001}};
  for (const auto& dims : cases) {
    const auto seed = test::fresh_seed();
    INFO("dims " << test::dims_str(dims) << " seed " << seed);
    const auto h = test::random_vector<float>(static_cast<std::size_t>(test::count_of(dims)), seed);
    const auto x = ufunc::to_device(h, shape(dims));
    for (int a : {0, 1}) {
      std::vector<bool> red{a == 0, a == 1};
      const auto g = groups(h, test::contiguous(dims), dims, red);
      const auto s = ufunc::sum(x, ufunc::axis(a)).to_host();
      const auto am = ufunc::argmax(x, ufunc::axis(a)).to_host();
      const auto mn = ufunc::reduce(max_f{})(x, ufunc::axis(a)).to_host();  // no identity
      std::size_t bad = 0;
      for (std::size_t o = 0; o < g.size(); ++o) {
        bad += std::fabs(s[o] - dsum(g[o])) > tree_bound(g[o].size(), dabs_sum(g[o])) + 1e-6;
        bad += am[o] != std::max_element(g[o].begin(), g[o].end()) - g[o].begin();
        bad += mn[o] != *std::max_element(g[o].begin(), g[o].end());
      }
      INFO("axis " << a);
      CHECK(bad == 0);
    }
  }
}

TEST_CASE("reduce: strided views (transposed, reversed, sliced) as inputs") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const std::vector<index_t> dims{37, 300};
  const auto h = test::random_vector<float>(37 * 300, seed);
  const auto x = ufunc::to_device(h, shape(dims));
  // Transposed: (300, 37) with strides (1, 300).
  const ref_operand tr{{300, 37}, {1, 300}, 0};
  const auto t = x.view().transposed();
  for (int a : {0, 1}) {
    std::vector<bool> red{a == 0, a == 1};
    const auto g = groups(h, tr, {300, 37}, red);
    const auto s = ufunc::sum(t, ufunc::axis(a)).to_host();
    std::size_t bad = 0;
    for (std::size_t o = 0; o < g.size(); ++o) bad += std::fabs(s[o] - dsum(g[o])) > tree_bound(g[o].size(), dabs_sum(g[o]));
    CHECK(bad == 0);
  }
  // Rows reversed, every third column: x[::-1, 1::3] has shape (37, 100).
  const auto v = x.view().sliced(0, -1, -38, -1).sliced(1, 1, 300, 3);
  REQUIRE(v.shape() == shape(37, 100));
  const ref_operand sl{{37, 100}, {-300, 3}, 36 * 300 + 1};
  const auto g = groups(h, sl, {37, 100}, {false, true});
  const auto am = ufunc::argmin(v, ufunc::axis(-1)).to_host();
  std::size_t bad = 0;
  for (std::size_t o = 0; o < g.size(); ++o) bad += am[o] != std::min_element(g[o].begin(), g[o].end()) - g[o].begin();
  CHECK(bad == 0);
  const auto whole = groups(h, sl, {37, 100}, {true, true});
  CHECK(ufunc::argmax(v) == std::max_element(whole[0].begin(), whole[0].end()) - whole[0].begin());
  CHECK(std::fabs(ufunc::sum(v) - dsum(whole[0])) <= tree_bound(whole[0].size(), dabs_sum(whole[0])));
}

TEST_CASE("reduce: out receives the result without a host round trip; out is checked") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const auto h = test::random_vector<float>(6000, seed);
  const auto x = ufunc::to_device(h, {60, 100});
  auto r0 = ufunc::empty<float>(shape{});
  auto same = ufunc::sum(x, ufunc::out(r0));
  static_assert(std::is_same_v<decltype(same), ufunc::array_view<float>>);
  CHECK(std::fabs(r0.to_host()[0] - dsum(h)) <= tree_bound(h.size(), dabs_sum(h)));
  auto r1 = ufunc::empty<double>({1});  // one element, another type
  ufunc::max(x, ufunc::out(r1));
  CHECK(r1.to_host()[0] == *std::max_element(h.begin(), h.end()));
  // Axis result into a column of a wider array (strided out).
  auto wide = ufunc::full<float>({100, 2}, -1.0f);
  ufunc::max(x, ufunc::axis(0), ufunc::out(ufunc::make_view(wide.data() + 1, {100}, {2})));
  const auto hw = wide.to_host();
  const auto g = groups(h, test::contiguous({60, 100}), {60, 100}, {true, false});
  std::size_t bad = 0;
  for (std::size_t o = 0; o < 100; ++o)
    bad += hw[2 * o] != -1.0f || hw[2 * o + 1] != *std::max_element(g[o].begin(), g[o].end());
  CHECK(bad == 0);
  auto rk = ufunc::empty<float>({60, 1});
  ufunc::sum(x, ufunc::axis(1), ufunc::keepdims, ufunc::out(rk));
  const auto hk = rk.to_host();
  const auto gr = groups(h, test::contiguous({60, 100}), {60, 100}, {false, true});
  for (std::size_t o = 0; o < 60; ++o) CHECK(std::fabs(hk[o] - dsum(gr[o])) <= tree_bound(100, dabs_sum(gr[o])));
  // Wrong shapes and overlap.
  auto bad_shape = ufunc::empty<float>({99});
  expect_throws_with([&] { ufunc::sum(x, ufunc::axis(0), ufunc::out(bad_shape)); }, "(99,)");
  auto two = ufunc::empty<float>({2});
  expect_throws_with([&] { ufunc::sum(x, ufunc::out(two)); }, "out has shape (2,)");
  auto xx = ufunc::to_device(h, {60, 100});
  expect_throws_with([&] { ufunc::sum(xx, ufunc::axis(0), ufunc::out(ufunc::make_view(xx.data(), {100}))); },
                     "overlap");
}

TEST_CASE("reduce: errors name the shapes and axes") {
  const auto x = ufunc::zeros<float>({2, 3, 4});
  expect_throws_with([&] { ufunc::sum(x, ufunc::axis(3)); }, "axis 3 is out of range for shape (2,3,4)");
  expect_throws_with([&] { ufunc::sum(x, ufunc::axis(-4)); }, "axis -4 is out of range");
  expect_throws_with([&] { ufunc::sum(x, ufunc::axes{0, -3}); }, "given twice");
  expect_throws_with([&] { ufunc::argmin(x, ufunc::axes{0, 1}); }, "give one axis");
  expect_throws_with([&] { ufunc::sum(x, ufunc::axis(0), ufunc::axis(1)); }, "axes once");
  expect_throws_with([&] { ufunc::reduce(max_f{})(ufunc::zeros<float>({2, 0}), ufunc::axis(1)); },
                     "zero-size reduction of shape (2,0) over axes (1,)");
  CHECK_THROWS_AS(ufunc::sum(x, ufunc::axis(7)), ufunc::shape_error);
}

TEST_CASE("reduce: min/max/argmin/argmax propagate NaN as NumPy does") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (index_t n : {5, 1000, 100001}) {
    std::vector<float> h(static_cast<std::size_t>(n));
    std::iota(h.begin(), h.end(), 0.0f);
    h[static_cast<std::size_t>(n / 3)] = nan;
    h[static_cast<std::size_t>(n / 2)] = nan;
    const auto x = ufunc::to_device(h);
    CHECK(std::isnan(ufunc::min(x)));
    CHECK(std::isnan(ufunc::max(x)));
    CHECK(ufunc::argmin(x) == n / 3);  // the first NaN
    CHECK(ufunc::argmax(x) == n / 3);
    CHECK(std::isnan(ufunc::sum(x)));
  }
  // Ties: the lowest index wins.
  std::vector<float> t(50000, 1.0f);
  t[123] = t[40000] = 5.0f;
  t[77] = t[30000] = -5.0f;
  CHECK(ufunc::argmax(ufunc::to_device(t)) == 123);
  CHECK(ufunc::argmin(ufunc::to_device(t)) == 77);
}

TEST_CASE("reduce: float sums use a tree order: error like log N, not N (2^24 values)") {
  const std::size_t n = std::size_t(1) << 24;
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> d(1.0f, 1.0f);  // mean 1: a serial float sum stalls near 2^24
  std::vector<float> h(n);
  for (auto& v : h) v = d(rng);
  const double ref = dsum(h), bound = tree_bound(n, dabs_sum(h));
  float serial = 0;
  for (float v : h) serial += v;
  INFO("reference " << ref << ", serial float loop " << serial << ", bound " << bound);
  CHECK(std::fabs(serial - ref) > bound);  // the bound tells a serial order from a tree
  const float s = ufunc::sum(ufunc::to_device(h));
  INFO("ufunc::sum " << s << ", error " << std::fabs(s - ref));
  CHECK(std::fabs(s - ref) <= bound);
  auto hx = ufunc::asarray<ufunc::target::host>(h);
  CHECK(std::fabs(ufunc::sum(hx) - ref) <= bound);
}

TEST_CASE("reduce: host arrays reduce on the host target in every build; std::vector inputs") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const auto h = test::random_vector<float>(3000, seed);
  const auto hx = ufunc::asarray<ufunc::target::host>(h, {30, 100});
  const auto r = ufunc::sum(hx, ufunc::axis(1));
  static_assert(std::is_same_v<decltype(r), const ufunc::array<float, ufunc::target::host>>);
  const auto g = groups(h, test::contiguous({30, 100}), {30, 100}, {false, true});
  for (std::size_t o = 0; o < 30; ++o) CHECK(std::fabs(r.data()[o] - dsum(g[o])) <= tree_bound(100, dabs_sum(g[o])));
  CHECK(ufunc::max(h) == *std::max_element(h.begin(), h.end()));  // std::vector input
  const auto dot = ufunc::map_reduce(mul_f{}, ufunc::plus{});
  double dref = 0;
  for (float v : h) dref += double(v) * v;
  CHECK(dot(h, h) == doctest::Approx(dref).epsilon(1e-5));
}

TEST_CASE("reduce: a stream argument orders the work on that stream") {
  const auto h = test::random_vector<float>(100000, test::fresh_seed());
  ufunc::stream_ref s;
#if defined(UFUNC_BACKEND_CUDA)
  cudaStream_t cs;
  REQUIRE(cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking) == cudaSuccess);
  s = cs;
#endif
  {
    const auto x = ufunc::to_device(h, {1000, 100}, s);
    auto r = ufunc::sum(x, ufunc::axis(0), s);
    auto r0 = ufunc::empty<float>(shape{}, s);
    ufunc::sum(x, ufunc::out(r0), s);
    const float whole = ufunc::sum(x, s);
    s.synchronize();
    CHECK(std::fabs(r0.to_host()[0] - whole) <= 1e-3f * std::fabs(whole) + 1e-2f);
    const auto hr = r.to_host();
    const auto g = groups(h, test::contiguous({1000, 100}), {1000, 100}, {true, false});
    for (std::size_t o = 0; o < 100; ++o) CHECK(std::fabs(hr[o] - dsum(g[o])) <= tree_bound(1000, dabs_sum(g[o])));
  }
#if defined(UFUNC_BACKEND_CUDA)
  cudaStreamSynchronize(cs);
  cudaStreamDestroy(cs);
#endif
}

TEST_CASE("ufunc methods: reduce, accumulate and outer of a binary vectorized function") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const auto add = ufunc::vectorize(add_f{}, "add");
  const std::vector<index_t> dims{7, 9, 5};
  const auto h = test::random_vector<float>(7 * 9 * 5, seed, -4, 4);
  const auto x = ufunc::to_device(h, shape(dims));
  // reduce: axis 0 by default.
  const auto r = add.reduce(x);
  REQUIRE(r.shape() == shape(9, 5));
  const auto g = groups(h, test::contiguous(dims), dims, {true, false, false});
  const auto hr = r.to_host();
  for (std::size_t o = 0; o < g.size(); ++o) CHECK(std::fabs(hr[o] - dsum(g[o])) <= 1e-4);
  CHECK(add.reduce(x, ufunc::axis(2)).shape() == shape(7, 9));
  CHECK_THROWS_AS(add.reduce(ufunc::zeros<float>({0, 3})), ufunc::value_error);
  // accumulate along each axis against a serial scan.
  for (int a : {0, 1, 2, -1}) {
    const auto acc = add.accumulate(x, ufunc::axis(a)).to_host();
    const int ax = a < 0 ? a + 3 : a;
    const auto st = test::row_major(dims);
    std::size_t bad = 0;
    for (index_t i = 0; i < 7 * 9 * 5; ++i) {
      const auto idx = test::unravel(i, dims);
      double want = 0;
      for (index_t k = 0; k <= idx[static_cast<std::size_t>(ax)]; ++k)
        want += h[static_cast<std::size_t>(i + (k - idx[static_cast<std::size_t>(ax)]) * st[static_cast<std::size_t>(ax)])];
      bad += std::fabs(acc[static_cast<std::size_t>(i)] - want) > 1e-4;
    }
    INFO("axis " << a);
    CHECK(bad == 0);
  }
  // A long 1-D scan in int64 (exact) and on a reversed view.
  const auto hi = test::random_vector<long long>(300001, seed, -1000, 1000);
  const auto xi = ufunc::to_device(hi);
  const auto addi = ufunc::vectorize(add_i{});
  const auto ci = addi.accumulate(xi).to_host();
  std::vector<long long> want(hi.size());
  std::partial_sum(hi.begin(), hi.end(), want.begin());
  CHECK(ci == want);
  const auto cr = addi.accumulate(xi.view().sliced(0, -1, -300002, -1)).to_host();
  std::partial_sum(hi.rbegin(), hi.rend(), want.begin());
  CHECK(cr == want);
  CHECK_THROWS_AS(add.accumulate(x, ufunc::axis(3)), ufunc::shape_error);
  // outer: shape x.shape + y.shape, values f(x[i], y[j]); mixed types.
  const auto hy = test::random_vector<double>(4 * 3, seed + 7);
  const auto y = ufunc::to_device(hy, {4, 3});
  const auto sub = ufunc::vectorize(sub_d{});
  const auto o = sub.outer(x, y);
  REQUIRE(o.shape() == shape(7, 9, 5, 4, 3));
  const auto ho = o.to_host();
  std::size_t bad = 0;
  for (std::size_t i = 0; i < h.size(); ++i)
    for (std::size_t j = 0; j < hy.size(); ++j) bad += ho[i * hy.size() + j] != double(h[i]) - hy[j];
  CHECK(bad == 0);
  auto oo = ufunc::empty<double>({7, 9, 5, 4, 3});
  sub.outer(x, y, ufunc::out(oo));
  CHECK(oo.to_host() == ho);
  CHECK_THROWS_AS(sub.outer(ufunc::zeros<float>({1, 1, 1, 1, 1}), ufunc::zeros<double>({1, 1, 1, 1})),
                  ufunc::shape_error);
}

TEST_CASE("reduce: padded rows (a sliced view) with ragged lengths, float and double") {
  // Rows of a (9, 10004) array cut to 10001 and 4099 columns: rows start aligned
  // but end mid-vector; columns of the cut view are reduced too.
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const std::vector<index_t> dims{9, 10004};
  const auto hf = test::random_vector<float>(9 * 10004, seed);
  const auto hd = test::random_vector<double>(9 * 10004, seed + 1);
  const auto xf = ufunc::to_device(hf, shape(dims));
  const auto xd = ufunc::to_device(hd, shape(dims));
  for (index_t cols : {10001, 4099, 8}) {
    INFO("cols " << cols);
    const ref_operand lay{{9, cols}, {10004, 1}, 0};
    for (int a : {0, 1}) {
      const std::vector<bool> red{a == 0, a == 1};
      const auto gf = groups(hf, lay, {9, cols}, red);
      const auto gd = groups(hd, lay, {9, cols}, red);
      const auto sf = ufunc::sum(xf.view().sliced(1, 0, cols), ufunc::axis(a)).to_host();
      const auto sd = ufunc::sum(xd.view().sliced(1, 0, cols), ufunc::axis(a)).to_host();
      const auto am = ufunc::argmax(xd.view().sliced(1, 0, cols), ufunc::axis(a)).to_host();
      std::size_t bad = 0;
      for (std::size_t o = 0; o < gf.size(); ++o) {
        bad += std::fabs(sf[o] - dsum(gf[o])) > tree_bound(gf[o].size(), dabs_sum(gf[o]));
        double s = 0, sa = 0;
        for (double v : gd[o]) s += v, sa += std::fabs(v);
        bad += std::fabs(sd[o] - s) > 64 * std::ldexp(1.0, -53) * sa;
        bad += am[o] != std::max_element(gd[o].begin(), gd[o].end()) - gd[o].begin();
      }
      INFO("axis " << a);
      CHECK(bad == 0);
    }
  }
}
