// The ufunc methods of a binary vectorized function (declared in vectorize.hpp,
// defined with the reductions): f.reduce along an axis, f.accumulate (inclusive
// scan) along each axis and on a reversed view, and f.outer with mixed types and
// an out. References are computed by index math and serial scans, in double.
#include "reduce_support.hpp"

#include <numeric>
#include <random>
#include <vector>

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
  // keepdims keeps NumPy's default axis 0 (np.add.reduce(x, keepdims=True)):
  // (7,9,5) -> (1,9,5), the same values; an empty (3,0) gives an empty (1,0).
  const auto rk = add.reduce(x, ufunc::keepdims);
  REQUIRE(rk.shape() == shape(1, 9, 5));
  CHECK(rk.to_host() == hr);
  CHECK(add.reduce(ufunc::zeros<float>({3, 0}), ufunc::keepdims).shape() == shape(1, 0));
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
      bad += !(std::fabs(acc[static_cast<std::size_t>(i)] - want) <= 1e-4);
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

TEST_CASE("cumsum and cumprod: along an axis, and over the flattened array (contiguous or not), NumPy's dtypes") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const std::vector<index_t> dims{6, 4, 5};
  const auto h = test::random_vector<float>(6 * 4 * 5, seed, -2, 2);
  const auto x = ufunc::to_device(h, shape(dims));
  const auto st = test::row_major(dims);
  for (int a : {0, 1, 2, -2}) {
    CAPTURE(a);
    const int ax = a < 0 ? a + 3 : a;
    const auto cs = ufunc::cumsum(x, ufunc::axis(a)).to_host();
    const auto cp = ufunc::cumprod(x, ufunc::axis(a)).to_host();
    std::size_t bad = 0;
    for (index_t i = 0; i < 6 * 4 * 5; ++i) {
      const auto idx = test::unravel(i, dims);
      double s = 0, p = 1;
      for (index_t k = 0; k <= idx[static_cast<std::size_t>(ax)]; ++k) {
        const double v = h[static_cast<std::size_t>(i + (k - idx[static_cast<std::size_t>(ax)]) * st[static_cast<std::size_t>(ax)])];
        s += v;
        p *= v;
      }
      bad += std::fabs(cs[static_cast<std::size_t>(i)] - s) > 1e-4 || std::fabs(cp[static_cast<std::size_t>(i)] - p) > 1e-4 * (1 + std::fabs(p));
    }
    CHECK(bad == 0);
  }
  // Flattened: row-major order of the view's logical shape (a transposed view is copied first).
  const auto flat = ufunc::cumsum(x);
  REQUIRE(flat.shape() == shape(6 * 4 * 5));
  const auto t = x.view().transposed();  // (5, 4, 6)
  const auto ft = ufunc::cumsum(t).to_host();
  const auto fh = flat.to_host();
  double s = 0, st_sum = 0;
  std::size_t bad = 0, k = 0;
  for (index_t i = 0; i < 6 * 4 * 5; ++i) {
    s += h[static_cast<std::size_t>(i)];
    bad += std::fabs(fh[static_cast<std::size_t>(i)] - s) > 1e-4;
  }
  for (index_t c = 0; c < 5; ++c)
    for (index_t b = 0; b < 4; ++b)
      for (index_t a = 0; a < 6; ++a, ++k) {
        st_sum += h[static_cast<std::size_t>((a * 4 + b) * 5 + c)];
        bad += std::fabs(ft[k] - st_sum) > 1e-4;
      }
  CHECK(bad == 0);
  // NumPy's accumulator types: int8 and bool sum into int64, uint8 into uint64.
  const auto i8 = ufunc::to_device(std::vector<std::int8_t>{100, 100, 100, -128}, shape(4));
  const auto ci8 = ufunc::cumsum(i8);
  static_assert(std::is_same_v<typename decltype(ci8)::value_type, std::int64_t>);
  CHECK(ci8.to_host() == std::vector<std::int64_t>{100, 200, 300, 172});
  const auto u8 = ufunc::to_device(std::vector<std::uint8_t>{200, 200}, shape(2));
  CHECK(ufunc::cumprod(u8).to_host() == std::vector<std::uint64_t>{200, 40000});
  CHECK(ufunc::cumsum(ufunc::zeros<float>({0, 3}), ufunc::axis(1)).shape() == shape(0, 3));
  CHECK_THROWS_AS(ufunc::cumsum(x, ufunc::axis(3)), ufunc::shape_error);
}

TEST_CASE("exclusive scans: f.accumulate(x, axis, exclusive), cumsum and cumprod along each axis") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const std::vector<index_t> dims{5, 3, 4};
  const auto h = test::random_vector<float>(5 * 3 * 4, seed, -2, 2);
  const auto x = ufunc::to_device(h, shape(dims));
  const auto st = test::row_major(dims);
  const auto mx = ufunc::vectorize(ufunc::maximum{});
  for (int a : {0, 1, 2, -1}) {
    CAPTURE(a);
    const int ax = a < 0 ? a + 3 : a;
    const auto es = ufunc::cumsum(x, ufunc::axis(a), ufunc::exclusive).to_host();
    const auto ep = ufunc::cumprod(x, ufunc::axis(a), ufunc::exclusive).to_host();
    const auto em = mx.accumulate(x, ufunc::axis(a), ufunc::exclusive).to_host();
    std::size_t bad = 0;
    for (index_t i = 0; i < 5 * 3 * 4; ++i) {
      const auto idx = test::unravel(i, dims);
      double s = 0, p = 1, m = -INFINITY;
      for (index_t k = 0; k < idx[static_cast<std::size_t>(ax)]; ++k) {  // the elements before this one
        const double v = h[static_cast<std::size_t>(i + (k - idx[static_cast<std::size_t>(ax)]) * st[static_cast<std::size_t>(ax)])];
        s += v;
        p *= v;
        m = std::max(m, v);
      }
      const auto u = static_cast<std::size_t>(i);
      bad += std::fabs(es[u] - s) > 1e-4 || std::fabs(ep[u] - p) > 1e-4 * (1 + std::fabs(p)) ||
             (idx[static_cast<std::size_t>(ax)] == 0 ? em[u] != -INFINITY : em[u] != float(m));
    }
    CHECK(bad == 0);
  }
  CHECK(ufunc::cumsum(ufunc::zeros<float>({3, 0}), ufunc::axis(1), ufunc::exclusive).shape() == shape(3, 0));
  const auto one = ufunc::to_device(std::vector<std::int8_t>{5, 7, 9}, shape(3));
  CHECK(ufunc::cumsum(one, ufunc::axis(0), ufunc::exclusive).to_host() == std::vector<std::int64_t>{0, 5, 12});
  CHECK_THROWS_AS(ufunc::cumsum(x, ufunc::axis(-4), ufunc::exclusive), ufunc::shape_error);
}

TEST_CASE("f.at: unbuffered in-place updates with repeated and negative indices, checked before any write") {
  using host = ufunc::target::host;
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 g(seed);
  std::uniform_int_distribution<int> pick(-50, 49);
  std::vector<int> idx(2000);
  for (auto& i : idx) i = pick(g);  // many repeats, negative ones too
  const auto hb = test::random_vector<float>(2000, seed + 1, -1, 1);
  // A non-commutative f on the host: in index order, exactly as a loop.
  const auto f = ufunc::vectorize<host>([](float acc, float b) { return acc * 0.5f + b; });
  auto a = ufunc::zeros<float, host>({100});
  auto wide = ufunc::zeros<float, host>({200});  // a strided a: every other element
  const auto I = ufunc::asarray<host>(idx, shape(2000));
  const auto B = ufunc::asarray<host>(hb, shape(2000));
  f.at(a, I, B);
  f.at(wide.view().sliced(0, 0, 200, 2), I, B);
  std::vector<float> want(100, 0.f);
  for (std::size_t k = 0; k < idx.size(); ++k) {
    const auto u = static_cast<std::size_t>(idx[k] < 0 ? idx[k] + 100 : idx[k]);
    want[u] = want[u] * 0.5f + hb[k];
  }
  CHECK(a.to_host() == want);
  const auto wh = wide.to_host();
  std::size_t bad = 0;
  for (std::size_t j = 0; j < 200; ++j) bad += wh[j] != (j % 2 ? 0.f : want[j / 2]);
  CHECK(bad == 0);
  // np.add.at with a scalar, and np.minimum.at with a NaN (it propagates, as NumPy's).
  auto counts = ufunc::zeros<std::int64_t, host>({100});
  ufunc::vectorize<host>(ufunc::plus{}).at(counts, I, std::int64_t(1));
  std::vector<std::int64_t> wc(100, 0);
  for (int i : idx) ++wc[static_cast<std::size_t>(i < 0 ? i + 100 : i)];
  CHECK(counts.to_host() == wc);
  auto m = ufunc::full<float, host>({4}, 5.f);
  const auto mi = ufunc::asarray<host>(std::vector<int>{0, 1, 1, 3}, shape(4));
  const auto mb = ufunc::asarray<host>(std::vector<float>{7.f, std::nanf(""), 2.f, -1.f}, shape(4));
  ufunc::vectorize<host>(ufunc::minimum{}).at(m, mi, mb);
  const auto mh = m.to_host();
  CHECK((mh[0] == 5.f && std::isnan(mh[1]) && mh[2] == 5.f && mh[3] == -1.f));
  // An index out of range: shape_error, and nothing written (the bad one is last).
  auto z = ufunc::zeros<float, host>({10});
  const auto zi = ufunc::asarray<host>(std::vector<int>{1, 2, 10}, shape(3));
  CHECK_THROWS_AS(ufunc::vectorize<host>(ufunc::plus{}).at(z, zi, 1.f), ufunc::shape_error);
  CHECK(z.to_host() == std::vector<float>(10, 0.f));
  const auto zneg = ufunc::asarray<host>(std::vector<int>{-11}, shape(1));
  CHECK_THROWS_AS(ufunc::vectorize<host>(ufunc::plus{}).at(z, zneg, 1.f), ufunc::shape_error);
  CHECK_THROWS_AS(ufunc::vectorize<host>(ufunc::plus{}).at(z, zi, ufunc::zeros<float, host>({2})), ufunc::shape_error);
  // Indices in a's own memory (np.add.at(a, a, 1)): read as a held them before the
  // call. `buf` of 2100 values in [0, 100); a its first 100, the indices all of it.
  std::vector<std::int64_t> bufh(2100);
  for (auto& v : bufh) v = static_cast<std::int64_t>(g() % 100);
  const auto aliased_want = [&] {
    std::vector<std::int64_t> w(bufh);
    for (const auto v : bufh) w[static_cast<std::size_t>(v)] += 3;
    return w;
  }();
  {
    auto buf = ufunc::asarray<host>(bufh, shape(2100));
    ufunc::vectorize<host>(ufunc::plus{}).at(buf.view().sliced(0, 0, 100), buf.view(), std::int64_t(3));
    CHECK(buf.to_host() == aliased_want);
  }
#if defined(UFUNC_BACKEND_CUDA)
  {
    // The same on the GPU: 2100 indices into 100 elements takes the route that
    // updates a in place (at_checked_updates_pay), where the copy of the indices matters.
    REQUIRE(ufunc::detail::at_checked_updates_pay(100, 8, 2100, 8));
    auto buf = ufunc::asarray(bufh, shape(2100));
    ufunc::vectorize(ufunc::plus{}).at(buf.view().sliced(0, 0, 100), buf.view(), std::int64_t(3));
    CHECK(buf.to_host() == aliased_want);
  }
  // On the GPU: compare-and-swap updates; integers exactly, floats within rounding.
  auto dc = ufunc::zeros<std::int64_t>({100});
  const auto dI = ufunc::asarray(idx, shape(2000));
  ufunc::vectorize(ufunc::plus{}).at(dc, dI, std::int64_t(1));
  CHECK(dc.to_host() == wc);
  auto df = ufunc::zeros<float>({100});
  ufunc::vectorize(ufunc::plus{}).at(df, dI, ufunc::asarray(hb, shape(2000)));
  std::vector<double> ws(100, 0.0), wa(100, 0.0), cnt(100, 0.0);
  for (std::size_t k = 0; k < idx.size(); ++k) {
    const auto u = static_cast<std::size_t>(idx[k] < 0 ? idx[k] + 100 : idx[k]);
    ws[u] += hb[k];
    wa[u] += std::fabs(hb[k]);
    cnt[u] += 1;
  }
  // The same sums through the compare-and-swap loop: an f that is not ufunc::plus,
  // and plus with b of another type (double b into float a: f's value, then the cast).
  auto dl = ufunc::zeros<float>({100});
  ufunc::vectorize([] UFUNC_HD(float x, float y) { return x + y; }).at(dl, dI, ufunc::asarray(hb, shape(2000)));
  auto dd = ufunc::zeros<float>({100});
  std::vector<double> hbd(hb.begin(), hb.end());
  ufunc::vectorize(ufunc::plus{}).at(dd, dI, ufunc::asarray(hbd, shape(2000)));
  // cnt additions from 0 in any order: within cnt u sum|b| (u = 2^-24 < 6e-8)
  for (const auto& d : {df.to_host(), dl.to_host(), dd.to_host()}) {
    bad = 0;
    for (std::size_t u = 0; u < 100; ++u) bad += std::fabs(d[u] - ws[u]) > (cnt[u] + 1) * 6e-8 * wa[u];
    CHECK(bad == 0);
  }
  // minimum through the loop, integers exactly.
  auto dm = ufunc::full<int>({100}, 1 << 30);
  std::vector<int> bi(2000), wm(100, 1 << 30);
  for (std::size_t k = 0; k < bi.size(); ++k) {
    bi[k] = static_cast<int>(g() % 100000) - 50000;
    const auto u = static_cast<std::size_t>(idx[k] < 0 ? idx[k] + 100 : idx[k]);
    wm[u] = std::min(wm[u], bi[k]);
  }
  ufunc::vectorize(ufunc::minimum{}).at(dm, dI, ufunc::asarray(bi, shape(2000)));
  CHECK(dm.to_host() == wm);
  auto dz = ufunc::zeros<float>({10});
  CHECK_THROWS_AS(ufunc::vectorize(ufunc::plus{}).at(dz, ufunc::asarray(std::vector<int>{1, 2, 10}, shape(3)), 1.f),
                  ufunc::shape_error);
  CHECK(dz.to_host() == std::vector<float>(10, 0.f));
  // Both device routes: many indices into a small a (a updated in place, each
  // update checking its own index, a copy of a put back on a bad one) and few
  // into a large one (a check pass, then the updates in place). A strided a, a bad index among thousands of good
  // ones: shape_error and a unchanged, on each route.
  for (const index_t n : {index_t(100), index_t(8192)}) {
    CAPTURE(n);
    REQUIRE(ufunc::detail::at_checked_updates_pay(n, sizeof(float), 2000, sizeof(int)) == (n == 100));
    std::vector<int> ix(2000);
    std::uniform_int_distribution<int> any(-static_cast<int>(n), static_cast<int>(n) - 1);
    for (auto& i : ix) i = any(g);
    const auto start = test::random_vector<float>(static_cast<std::size_t>(2 * n), seed + 2, -1, 1);
    auto wa_ = ufunc::asarray(start, shape(2 * n));
    const auto av = wa_.view().sliced(0, 1, 2 * n, 2);  // the odd elements
    ufunc::vectorize(ufunc::plus{}).at(av, ufunc::asarray(ix, shape(2000)), ufunc::asarray(hb, shape(2000)));
    std::vector<double> exact(start.begin(), start.end()), mag(start.size(), 0.0), c(start.size(), 0.0);
    for (std::size_t k = 0; k < ix.size(); ++k) {
      const auto j = 2 * static_cast<std::size_t>(ix[k] < 0 ? ix[k] + n : ix[k]) + 1;
      exact[j] += hb[k];
      mag[j] += std::fabs(hb[k]);
      c[j] += 1;
    }
    const auto got = wa_.to_host();
    bad = 0;
    for (std::size_t j = 0; j < got.size(); ++j)
      bad += j % 2 ? std::fabs(got[j] - exact[j]) > (c[j] + 1) * 6e-8 * (mag[j] + std::fabs(start[j])) : got[j] != start[j];
    CHECK(bad == 0);
    ix[1234] = static_cast<int>(n);  // one past the end
    CHECK_THROWS_AS(
        ufunc::vectorize(ufunc::plus{}).at(av, ufunc::asarray(ix, shape(2000)), ufunc::asarray(hb, shape(2000))),
        ufunc::shape_error);
    ix[1234] = -static_cast<int>(n) - 1;
    CHECK_THROWS_AS(ufunc::vectorize(ufunc::plus{}).at(av, ufunc::asarray(ix, shape(2000)), 1.f), ufunc::shape_error);
    CHECK(wa_.to_host() == got);
  }
#endif
}
