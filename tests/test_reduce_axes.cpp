// Reductions over axes: any set of axes with keepdims, the 2-D cases the kernels
// specialise, strided views, out and errors (the ufunc methods reduce/accumulate/
// outer are in test_ufunc_methods.cpp). References are computed by index math,
// in double.
#include "reduce_support.hpp"

TEST_CASE("reduce: any set of axes of random N-d arrays, with keepdims, against index math") {
  std::mt19937_64 rng(test::fresh_seed());
  for (int iter = 0; iter < 62; ++iter) {
    std::vector<index_t> dims;
    for (int d = 0, r = 1 + static_cast<int>(rng() % 4); d < r; ++d)
      dims.push_back(1 + static_cast<index_t>(rng() % (iter < 50 ? 6 : 40)));
    if (iter == 58) dims = {6, 5, 7, 8};  // reduced (0, 2) below: two reduced dims that do not merge
    if (iter == 59) dims = {3, 2049, 5};  // long reduced rows and columns
    // Rank 8, every other dim reduced: four kept and four reduced dims, none
    // merging, so every element's offsets walk four dims (a 64-bit plan's loop,
    // nd_plan::offsets); the last dim kept (columns), then reduced (rows).
    if (iter >= 60) dims = {3, 2, 3, 2, 3, 2, 3, 2};
    const int rank = static_cast<int>(dims.size());
    std::vector<bool> red(dims.size());
    std::vector<int> ax;
    for (int d = 0; d < rank; ++d)
      if (rng() % 2) red[static_cast<std::size_t>(d)] = true, ax.push_back(rng() % 2 ? d : d - rank);
    if (iter == 58) red = {true, false, true, false}, ax = {0, -2};
    if (iter >= 60) {
      const bool odd = iter == 61;
      ax.clear();
      for (int d = 0; d < rank; ++d) {
        red[static_cast<std::size_t>(d)] = (d % 2 == 1) == odd;
        if (red[static_cast<std::size_t>(d)]) ax.push_back(d);
      }
    }
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
      bad += !(std::fabs(hs[o] - dsum(g[o])) <= tree_bound(g[o].size(), dabs_sum(g[o])) + 1e-6);
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
                                                   {513, 257},  {17, 70001}, {33, 4},     {4097, 8},
                                                   {1 << 20, 4}, {300, 12},  {8192, 1024}, {100, 4096},
                                                   // short rows (lane groups): aligned, ragged, split
                                                   {1000, 64},  {777, 36},   {500, 33},   {5, 256},
                                                   {3, 250},    {40, 61},    {2, 1024},   {9, 1000}};
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
        bad += !(std::fabs(s[o] - dsum(g[o])) <= tree_bound(g[o].size(), dabs_sum(g[o])) + 1e-6);
        bad += am[o] != std::max_element(g[o].begin(), g[o].end()) - g[o].begin();
        bad += mn[o] != *std::max_element(g[o].begin(), g[o].end());
      }
      INFO("axis " << a);
      CHECK(bad == 0);
    }
  }
}

TEST_CASE("reduce: columns of narrow elements into wide accumulators (vector loads narrowed to fit)") {
  // int8 loads 16 per vector access; 16 long long accumulators per thread would
  // not fit the column kernel's shared memory, so it narrows its loads.
  std::mt19937_64 rng(test::fresh_seed());
  for (const std::vector<index_t>& dims : std::vector<std::vector<index_t>>{{1000, 48}, {70, 4096}, {4099, 16}, {5, 32}}) {
    const auto n = static_cast<std::size_t>(test::count_of(dims));
    std::vector<std::int8_t> h(n);
    for (auto& v : h) v = static_cast<std::int8_t>(static_cast<int>(rng() % 256) - 128);
    const auto x = ufunc::to_device(h, shape(dims));
    const auto K = static_cast<std::size_t>(dims[1]);
    std::vector<long long> want(K, 0);
    for (std::size_t i = 0; i < n; ++i) want[i % K] += h[i];
    INFO("dims " << test::dims_str(dims));
    const auto ll = ufunc::reduce<long long>(ufunc::plus{})(x, ufunc::axis(0)).to_host();
    const auto d = ufunc::reduce<double>(ufunc::plus{})(x, ufunc::axis(0)).to_host();
    const auto i = ufunc::sum(x, ufunc::axis(0)).to_host();
    REQUIRE(ll.size() == K);
    REQUIRE(d.size() == K);
    REQUIRE(i.size() == K);
    std::size_t bad = 0;
    for (std::size_t o = 0; o < K; ++o)
      bad += ll[o] != want[o] || d[o] != static_cast<double>(want[o]) || static_cast<long long>(i[o]) != want[o];
    CHECK(bad == 0);
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
    for (std::size_t o = 0; o < g.size(); ++o) bad += !(std::fabs(s[o] - dsum(g[o])) <= tree_bound(g[o].size(), dabs_sum(g[o])));
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
  // out exactly its input (a reduction of a size-1 axis with keepdims has the
  // input's shape): refused, as every overlap; the input is left as it was.
  auto row = ufunc::to_device(std::vector<float>(h.begin(), h.begin() + 100), {1, 100});
  expect_throws_with([&] { ufunc::sum(row, ufunc::axis(0), ufunc::keepdims, ufunc::out(row)); }, "overlaps input 0");
  CHECK(row.to_host() == std::vector<float>(h.begin(), h.begin() + 100));
}

TEST_CASE("reduce: errors name the shapes and axes") {
  const auto x = ufunc::zeros<float>({2, 3, 4});
  expect_throws_with([&] { ufunc::sum(x, ufunc::axis(3)); }, "axis 3 is out of range for shape (2,3,4)");
  expect_throws_with([&] { ufunc::sum(x, ufunc::axis(-4)); }, "axis -4 is out of range");
  expect_throws_with([&] { ufunc::sum(x, ufunc::axes{0, -3}); }, "given twice");
  expect_throws_with([&] { ufunc::argmin(x, ufunc::axes{0, 1}); }, "give one axis");
  expect_throws_with([&] { ufunc::reduce(max_f{})(ufunc::zeros<float>({2, 0}), ufunc::axis(1)); },
                     "zero-size reduction of shape (2,0) over axes (1,)");
  CHECK_THROWS_AS(ufunc::sum(x, ufunc::axis(7)), ufunc::shape_error);
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
        bad += !(std::fabs(sf[o] - dsum(gf[o])) <= tree_bound(gf[o].size(), dabs_sum(gf[o])));
        bad += !double_sum_close(sd[o], gd[o]);
        bad += am[o] != std::max_element(gd[o].begin(), gd[o].end()) - gd[o].begin();
      }
      INFO("axis " << a);
      CHECK(bad == 0);
    }
  }
}

TEST_CASE("reduce: short rows (lane groups per row) of double and int, aligned and shifted by one element") {
  // Rows up to about a thousand elements take groups of lanes; a view starting
  // one element in has no aligned row starts, so the kernel reads element by
  // element. Sums of double against a double reference, of int exactly.
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const std::vector<index_t> dims{301, 130};
  const auto hd = test::random_vector<double>(301 * 130, seed);
  std::vector<int> hi(hd.size());
  for (std::size_t i = 0; i < hd.size(); ++i) hi[i] = static_cast<int>(hd[i] * 1000);
  const auto xd = ufunc::to_device(hd, shape(dims));
  const auto xi = ufunc::to_device(hi, shape(dims));
  for (index_t shift : {0, 1}) {
    for (index_t cols : {index_t(128), index_t(64), index_t(20), index_t(9)}) {
      INFO("shift " << shift << " cols " << cols);
      const ref_operand lay{{301, cols}, {130, 1}, shift};
      const auto gd = groups(hd, lay, {301, cols}, {false, true});
      const auto gi = groups(hi, lay, {301, cols}, {false, true});
      const auto sd = ufunc::sum(xd.view().sliced(1, shift, shift + cols), ufunc::axis(1)).to_host();
      const auto am = ufunc::argmin(xd.view().sliced(1, shift, shift + cols), ufunc::axis(1)).to_host();
      const auto si = ufunc::sum(xi.view().sliced(1, shift, shift + cols), ufunc::axis(1)).to_host();
      const auto mi = ufunc::reduce([] UFUNC_HD(int a, int b) { return a < b ? b : a; })(
                          xi.view().sliced(1, shift, shift + cols), ufunc::axis(1))
                          .to_host();
      std::size_t bad = 0;
      for (std::size_t o = 0; o < gd.size(); ++o) {
        bad += !double_sum_close(sd[o], gd[o]);
        bad += am[o] != std::min_element(gd[o].begin(), gd[o].end()) - gd[o].begin();
        long long si_ref = 0;
        for (int v : gi[o]) si_ref += v;
        bad += si[o] != si_ref;
        bad += mi[o] != *std::max_element(gi[o].begin(), gi[o].end());
      }
      CHECK(bad == 0);
    }
  }
}

namespace {
template <class Tg>
void check_numpy_edge_cases(std::uint64_t seed) {
  INFO("target " << (std::is_same_v<Tg, ufunc::target::host> ? "host" : "device") << " seed " << seed);
  // Empty reduced ranges: NumPy's rule is that a reduction without an identity
  // raises exactly when the reduced range is empty, whatever the result's size.
  struct edge {
    std::vector<index_t> dims;
    std::vector<int> ax;
  };
  const std::vector<edge> cases = {{{0, 0}, {0}},    {{0, 0}, {1}},       {{0, 0}, {0, 1}}, {{0, 3}, {0}},
                                   {{0, 3}, {1}},    {{3, 0}, {0}},       {{3, 0}, {1}},    {{2, 0, 0}, {1, 2}},
                                   {{0, 2, 0}, {0}}, {{0, 2, 0}, {1}},   {{0, 2, 0}, {-1}}, {{4, 0}, {-2}}};
  const auto fmax = ufunc::vectorize<Tg>(max_f{}, "fmax");
  for (const auto& c : cases) {
    std::vector<bool> red(c.dims.size(), false);
    for (int a : c.ax) red[static_cast<std::size_t>(a < 0 ? a + static_cast<int>(c.dims.size()) : a)] = true;
    index_t R = 1;
    std::vector<index_t> kept, kd;
    for (std::size_t d = 0; d < c.dims.size(); ++d) {
      if (red[d]) R *= c.dims[d];
      else kept.push_back(c.dims[d]);
      kd.push_back(red[d] ? 1 : c.dims[d]);
    }
    INFO("shape " << test::shape_of(c.dims).str() << " axes " << c.ax.size() << " first " << c.ax[0]);
    const auto x = ufunc::zeros<float, Tg>(test::shape_of(c.dims));
    const ufunc::axes ax(std::vector<int>(c.ax.begin(), c.ax.end()));
    if (R == 0) {
      CHECK_THROWS_AS(ufunc::min(x, ax), ufunc::value_error);
      CHECK_THROWS_AS(ufunc::max(x, ax, ufunc::keepdims), ufunc::value_error);
      CHECK_THROWS_AS(ufunc::reduce(max_f{})(x, ax), ufunc::value_error);
      if (c.ax.size() == 1) {
        CHECK_THROWS_AS(ufunc::argmin(x, ufunc::axis(c.ax[0])), ufunc::value_error);
        CHECK_THROWS_AS(ufunc::argmax(x, ufunc::axis(c.ax[0])), ufunc::value_error);
        CHECK_THROWS_AS(fmax.reduce(x, ufunc::axis(c.ax[0])), ufunc::value_error);
      }
    } else {
      CHECK(ufunc::min(x, ax).shape() == test::shape_of(kept));
      CHECK(ufunc::max(x, ax, ufunc::keepdims).shape() == test::shape_of(kd));
      if (c.ax.size() == 1) CHECK(ufunc::argmax(x, ufunc::axis(c.ax[0])).shape() == test::shape_of(kept));
    }
    // With an identity there is always a result: zeros of the kept shape.
    const auto s = ufunc::sum(x, ax);
    CHECK(s.shape() == test::shape_of(kept));
    for (float v : s.to_host()) CHECK(v == 0.0f);
  }
  // Axis 0 or -1 of a 0-d array reduces nothing; a list or another axis is refused.
  const float v = test::random_vector<float>(1, seed)[0];
  const auto x0 = ufunc::full<float, Tg>(shape{}, v);
  for (int a : {0, -1}) {
    const auto s = ufunc::sum(x0, ufunc::axis(a));
    CHECK(s.shape() == shape{});
    CHECK(s.to_host()[0] == v);
    CHECK(ufunc::max(x0, ufunc::axis(a)).to_host()[0] == v);
    CHECK(ufunc::argmax(x0, ufunc::axis(a)).to_host()[0] == 0);
    CHECK(fmax.reduce(x0, ufunc::axis(a), ufunc::keepdims).to_host()[0] == v);
  }
  CHECK(fmax.reduce(x0).to_host()[0] == v);  // f.reduce's default axis 0
  CHECK(fmax.reduce(x0).shape() == shape{});
  CHECK_THROWS_AS(ufunc::sum(x0, ufunc::axes{0}), ufunc::shape_error);
  CHECK_THROWS_AS(ufunc::sum(x0, ufunc::axis(1)), ufunc::shape_error);
  CHECK_THROWS_AS(ufunc::sum(x0, ufunc::axis(-2)), ufunc::shape_error);
  // out must have the result's shape exactly, except that a whole reduction (no
  // axis, no keepdims) takes any one-element out (the documented difference).
  const auto h = test::random_vector<float>(3, seed + 1);
  const auto x = ufunc::asarray<Tg>(h, shape{3, 1});
  const float total = (h[0] + h[1]) + h[2];
  auto o11 = ufunc::full<float, Tg>(shape{1, 1}, -7.0f);
  CHECK_THROWS_AS(ufunc::sum(x, ufunc::axis(0), ufunc::out(o11)), ufunc::shape_error);
  CHECK_THROWS_AS(ufunc::sum(x, ufunc::axes{0, 1}, ufunc::out(o11)), ufunc::shape_error);
  CHECK(o11.to_host()[0] == -7.0f);
  auto o1 = ufunc::full<float, Tg>(shape{1}, -7.0f);
  CHECK_THROWS_AS(ufunc::sum(x, ufunc::keepdims, ufunc::out(o1)), ufunc::shape_error);
  CHECK(o1.to_host()[0] == -7.0f);
  ufunc::sum(x, ufunc::axis(0), ufunc::out(o1));
  CHECK(std::fabs(o1.to_host()[0] - total) <= tree_bound(3, std::fabs(h[0]) + std::fabs(h[1]) + std::fabs(h[2])));
  ufunc::sum(x, ufunc::out(o11));
  CHECK(std::fabs(o11.to_host()[0] - total) <= tree_bound(3, std::fabs(h[0]) + std::fabs(h[1]) + std::fabs(h[2])));
}
}  // namespace

TEST_CASE("reduce: NumPy's edge cases: empty ranges without identity, axis 0 of a 0-d array, exact out shapes") {
  const auto seed = test::fresh_seed();
  test::for_each_target([&](auto tg) { check_numpy_edge_cases<decltype(tg)>(seed); });
}
