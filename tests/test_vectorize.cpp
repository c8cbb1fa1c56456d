// ufunc::vectorize: broadcasting, type conversion, generic functors, out buffers,
// in-place use and strided views (negative, zero, transposed, sliced). Every
// value is checked against a host reference that evaluates the broadcast by
// index math (test_support.hpp). The rest of vectorize.hpp is in
// test_vectorize_more.cpp (several outputs, the host target and host
// containers, empty arrays, sizes, misalignment, math, streams),
// test_vectorize_ranks.cpp (1 to 8 inputs, ranks 0 to 8),
// test_vectorize_large.cpp (beyond 2^31 elements) and test_ufunc_methods.cpp
// (reduce, accumulate, outer).
#include "vectorize_support.hpp"

// ---------------------------------------------------------------------------
// Broadcasting

TEST_CASE("vectorize: NumPy broadcasting table, values by index math") {
  auto f = ufunc::vectorize([] UFUNC_HD (int a, int b) { return 3 * a - b; }, "three_a_minus_b");
  auto g = ufunc::vectorize([] UFUNC_HD (float a, float b) { return a - b; });
  auto gh = ufunc::vectorize<ufunc::target::host>([] UFUNC_HD (float a, float b) { return a - b; });
  for (const auto& c : numpy_table) {
    const auto seed = test::fresh_seed();
    INFO("a " << test::dims_str(c.a) << " b " << test::dims_str(c.b) << " seed " << seed);
    const auto ha = test::random_vector<int>(nelem(c.a), seed, -1000, 1000);
    const auto hb = test::random_vector<int>(nelem(c.b), seed + 1, -1000, 1000);
    auto r = f(dev(ha, c.a), dev(hb, c.b));
    static_assert(std::is_same_v<decltype(r), ufunc::array<int>>);
    CHECK(r.shape() == test::shape_of(c.out));
    test::expect_equal(r.to_host(), reference<int>(c.out, [](int a, int b) { return 3 * a - b; }, H(ha, c.a), H(hb, c.b)));

    const auto fa = test::random_vector<float>(nelem(c.a), seed + 2);
    const auto fb = test::random_vector<float>(nelem(c.b), seed + 3);
    auto rf = g(dev(fa, c.a), dev(fb, c.b));
    CHECK(rf.shape() == test::shape_of(c.out));
    const auto want = reference<float>(c.out, [](float a, float b) { return a - b; }, H(fa, c.a), H(fb, c.b));
    test::expect_equal(rf.to_host(), want);

    // The same on the host target with host arrays.
    auto rh = gh(ufunc::asarray<ufunc::target::host>(fa, test::shape_of(c.a)),
                 ufunc::asarray<ufunc::target::host>(fb, test::shape_of(c.b)));
    CHECK(rh.shape() == test::shape_of(c.out));
    test::expect_equal(rh.to_host(), want);
  }
}

TEST_CASE("vectorize: three operands and a scalar broadcast together") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const std::vector<index_t> da{2, 1, 3}, db{4, 1}, dc{3}, out{2, 4, 3};
  const auto ha = test::random_vector<int>(6, seed, -100, 100);
  const auto hb = test::random_vector<int>(4, seed + 1, -100, 100);
  const auto hc = test::random_vector<int>(3, seed + 2, -100, 100);
  const int k = static_cast<int>(seed % 13) - 6;
  auto f = ufunc::vectorize([] UFUNC_HD (int a, int b, int s, int c) { return a * s - b + 7 * c; });
  auto r = f(dev(ha, da), dev(hb, db), k, dev(hc, dc));
  CHECK(r.shape() == shape{2, 4, 3});
  test::expect_equal(r.to_host(), reference<int>(out, [k](int a, int b, int c) { return a * k - b + 7 * c; }, H(ha, da),
                                                 H(hb, db), H(hc, dc)));
}

// ---------------------------------------------------------------------------
// Types

TEST_CASE("vectorize: inputs convert to the parameter types; the result type is the return type") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const std::size_t n = 4099;
  const auto hi = test::random_vector<int>(n, seed, -1000000, 1000000);  // exact in float
  const auto di = ufunc::to_device(hi);

  SUBCASE("int array into a float lambda") {
    auto half = ufunc::vectorize([] UFUNC_HD (float x) { return x * 0.5f; });
    auto r = half(di);
    static_assert(std::is_same_v<decltype(r), ufunc::array<float>>);
    std::vector<float> want(n);
    for (std::size_t i = 0; i < n; ++i) want[i] = static_cast<float>(hi[i]) * 0.5f;
    test::expect_equal(r.to_host(), want);
  }
  SUBCASE("a double scalar converts to a float parameter") {
    auto add = ufunc::vectorize([] UFUNC_HD (float x, float s) { return x + s; });
    const double s = 0.1;  // not representable: the conversion to float is visible
    auto r = add(di, s);
    static_assert(std::is_same_v<decltype(r), ufunc::array<float>>);
    std::vector<float> want(n);
    for (std::size_t i = 0; i < n; ++i) want[i] = static_cast<float>(hi[i]) + static_cast<float>(s);
    test::expect_equal(r.to_host(), want);
  }
  SUBCASE("return types double, bool, int8 and int64") {
    auto widen = ufunc::vectorize([] UFUNC_HD (float x) { return static_cast<double>(x) / 3.0; });
    auto rd = widen(di);
    static_assert(std::is_same_v<decltype(rd), ufunc::array<double>>);
    std::vector<double> wd(n);
    for (std::size_t i = 0; i < n; ++i) wd[i] = static_cast<double>(static_cast<float>(hi[i])) / 3.0;
    test::expect_equal(rd.to_host(), wd);

    auto positive = ufunc::vectorize([] UFUNC_HD (int x) { return x > 0; });
    auto rb = positive(di);
    static_assert(std::is_same_v<decltype(rb), ufunc::array<bool>>);
    std::vector<bool> wb(n);
    for (std::size_t i = 0; i < n; ++i) wb[i] = hi[i] > 0;
    test::expect_equal(rb.to_host(), wb);

    auto narrow = ufunc::vectorize([] UFUNC_HD (int x) { return static_cast<signed char>(x % 100); });
    auto r8 = narrow(di);
    static_assert(std::is_same_v<decltype(r8), ufunc::array<signed char>>);
    std::vector<signed char> w8(n);
    for (std::size_t i = 0; i < n; ++i) w8[i] = static_cast<signed char>(hi[i] % 100);
    test::expect_equal(r8.to_host(), w8);

    auto prod = ufunc::vectorize([] UFUNC_HD (int a, int b) { return static_cast<long long>(a) * b; });
    auto r64 = prod(di, di);  // products up to 1e12: would overflow in int
    static_assert(std::is_same_v<decltype(r64), ufunc::array<long long>>);
    std::vector<long long> w64(n);
    for (std::size_t i = 0; i < n; ++i) w64[i] = static_cast<long long>(hi[i]) * hi[i];
    test::expect_equal(r64.to_host(), w64);
  }
  SUBCASE("narrow unsigned and wide inputs together (mixed vector widths)") {
    const auto hu = test::random_vector<std::uint8_t>(n, seed + 5, 0, 255);
    const auto hd = test::random_vector<double>(n, seed + 6);
    auto f = ufunc::vectorize([] UFUNC_HD (int u, double d) { return (u - 200) * d; });
    auto r = f(ufunc::to_device(hu), ufunc::to_device(hd));
    static_assert(std::is_same_v<decltype(r), ufunc::array<double>>);
    std::vector<double> want(n);
    for (std::size_t i = 0; i < n; ++i) want[i] = (static_cast<int>(hu[i]) - 200) * hd[i];
    test::expect_equal(r.to_host(), want);
  }
  SUBCASE("out of a different element type than the result") {
    auto scale = ufunc::vectorize([] UFUNC_HD (float x) { return x * 1.5f; });
    auto oi = ufunc::empty<int>(shape{static_cast<index_t>(n)});
    auto od = ufunc::empty<double>(shape{static_cast<index_t>(n)});
    CHECK_THROWS_AS(scale(di, ufunc::out(oi)), ufunc::type_error);  // float into int: NumPy's same_kind refuses
    scale(di, ufunc::out(oi), ufunc::unsafe_cast);
    scale(di, ufunc::out(od));
    std::vector<int> wi(n);
    std::vector<double> wdd(n);
    for (std::size_t i = 0; i < n; ++i) {
      const float v = static_cast<float>(hi[i]) * 1.5f;
      wi[i] = static_cast<int>(v);  // truncation toward zero, as static_cast does
      wdd[i] = static_cast<double>(v);
    }
    test::expect_equal(oi.to_host(), wi);
    test::expect_equal(od.to_host(), wdd);
  }
}

TEST_CASE("vectorize: a generic function object is instantiated per input types") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const std::size_t n = 1031;
  const auto hi = test::random_vector<int>(n, seed, -100000, 100000);
  const auto hd = test::random_vector<double>(n, seed + 1);
  const auto h8 = test::random_vector<signed char>(n, seed + 2, -128, 127);
  const auto di = ufunc::to_device(hi);
  const auto dd = ufunc::to_device(hd);
  const auto d8 = ufunc::to_device(h8);
  auto add = ufunc::vectorize(add_op{}, "add");

  auto ii = add(di, di);
  static_assert(std::is_same_v<decltype(ii), ufunc::array<int>>);
  auto id = add(di, dd);
  static_assert(std::is_same_v<decltype(id), ufunc::array<double>>);
  auto fi = add(2.5f, di);  // float scalar + int array -> float
  static_assert(std::is_same_v<decltype(fi), ufunc::array<float>>);
  auto cc = add(d8, d8);  // signed char + signed char promotes to int (no wrap-around)
  static_assert(std::is_same_v<decltype(cc), ufunc::array<int>>);

  std::vector<int> wii(n), wcc(n);
  std::vector<double> wid(n);
  std::vector<float> wfi(n);
  for (std::size_t i = 0; i < n; ++i) {
    wii[i] = hi[i] + hi[i];
    wid[i] = hi[i] + hd[i];
    wfi[i] = 2.5f + static_cast<float>(hi[i]);
    wcc[i] = int(h8[i]) + int(h8[i]);
  }
  test::expect_equal(ii.to_host(), wii);
  test::expect_equal(id.to_host(), wid);
  test::expect_equal(fi.to_host(), wfi);
  test::expect_equal(cc.to_host(), wcc);
}

// ---------------------------------------------------------------------------
// out buffers and in-place use

TEST_CASE("vectorize: out receives the values and the call returns the out view") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const auto ha = test::random_vector<float>(12, seed);
  const auto hb = test::random_vector<float>(3, seed + 1);
  const auto a = dev(ha, {4, 3});
  const auto b = dev(hb, {3});
  auto sub = ufunc::vectorize([] UFUNC_HD (float x, float y) { return x - y; });
  const auto want = reference<float>({4, 3}, [](float x, float y) { return x - y; }, H(ha, {4, 3}), H(hb, {3}));

  auto o = ufunc::full<float>(shape{4, 3}, -1.0f);
  auto ret = sub(a, b, ufunc::out(o));
  static_assert(std::is_same_v<decltype(ret), ufunc::array_view<float>>);
  CHECK(ret.data() == o.data());
  CHECK(ret.shape() == o.shape());
  test::expect_equal(o.to_host(), want);

  // A view as out, and a stream after it.
  auto o2 = ufunc::full<float>(shape{4, 3}, -1.0f);
  auto ret2 = sub(a, b, ufunc::out(o2.view()), ufunc::stream_ref{});
  CHECK(ret2.data() == o2.data());
  test::expect_equal(o2.to_host(), want);

  // The inputs broadcast to the out's shape (NumPy: np.subtract(b, 2, out=(4,3))).
  auto o3 = ufunc::full<float>(shape{4, 3}, -1.0f);
  sub(b, 2.0f, ufunc::out(o3));
  test::expect_equal(o3.to_host(), reference<float>({4, 3}, [](float y) { return y - 2.0f; }, H(hb, {3})));
}

TEST_CASE("vectorize: in-place, the out is one of the inputs") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  auto axpb = ufunc::vectorize([] UFUNC_HD (float x, float y) { return x - 2.0f * y; });

  SUBCASE("contiguous, large") {
    const std::size_t n = (1u << 20) + 7;
    const auto hx = test::random_vector<float>(n, seed);
    const auto hy = test::random_vector<float>(n, seed + 1);
    auto x = ufunc::to_device(hx);
    const auto y = ufunc::to_device(hy);
    auto ret = axpb(x, y, ufunc::out(x));
    CHECK(ret.data() == x.data());
    std::vector<float> want(n);
    for (std::size_t i = 0; i < n; ++i) want[i] = hx[i] - 2.0f * hy[i];  // 2*y is exact: no rounding to fuse
    test::expect_equal(x.to_host(), want);
    // Both inputs are the output.
    axpb(x, x, ufunc::out(x));
    for (auto& w : want) w = w - 2.0f * w;
    test::expect_equal(x.to_host(), want);
  }
  SUBCASE("long broadcast rows in place") {
    const std::vector<index_t> dx{4, 65539}, dy{65539};
    const auto hx = test::random_vector<float>(nelem(dx), seed + 3);
    const auto hy = test::random_vector<float>(nelem(dy), seed + 4);
    auto x = dev(hx, dx);
    axpb(x, dev(hy, dy), ufunc::out(x));
    test::expect_equal(x.to_host(), reference<float>(dx, [](float a, float b) { return a - 2.0f * b; }, H(hx, dx), H(hy, dy)));
    // The same rows reversed, in place, against a scalar.
    const auto rv = x.view().sliced(1, -1, -65540, -1);
    const auto before = x.to_host();
    axpb(rv, 0.5f, ufunc::out(rv));
    std::vector<float> want(before.size());
    for (std::size_t i = 0; i < before.size(); ++i) want[i] = before[i] - 1.0f;
    test::expect_equal(x.to_host(), want);
  }
  SUBCASE("transposed and reversed views in place") {
    const auto hx = test::random_vector<float>(37 * 53, seed + 2);
    auto x = dev(hx, {37, 53});
    const auto t = x.view().transposed();
    axpb(t, 0.25f, ufunc::out(t));
    std::vector<float> want(hx.size());
    for (std::size_t i = 0; i < hx.size(); ++i) want[i] = hx[i] - 2.0f * 0.25f;
    test::expect_equal(x.to_host(), want);

    const auto rv = x.view().sliced(0, -1, -38, -1);  // rows reversed
    axpb(rv, 1.0f, ufunc::out(rv));
    for (auto& w : want) w = w - 2.0f;
    test::expect_equal(x.to_host(), want);
  }
}

// ---------------------------------------------------------------------------
// Strided views

TEST_CASE("vectorize: views with negative strides as inputs and as out") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  auto sub = ufunc::vectorize([] UFUNC_HD (int x, int y) { return x - y; });

  SUBCASE("1-D reversed") {
    for (index_t n : {1, 3, 4097}) {
      INFO("n " << n);
      const auto hx = test::random_vector<int>(static_cast<std::size_t>(n), seed, -1000, 1000);
      const auto hy = test::random_vector<int>(static_cast<std::size_t>(n), seed + 1, -1000, 1000);
      const auto x = ufunc::to_device(hx);
      const auto y = ufunc::to_device(hy);
      const auto rx = x.view().sliced(0, -1, -n - 1, -1);
      REQUIRE(rx.shape() == shape{n});
      auto r = sub(rx, y);
      std::vector<int> want(static_cast<std::size_t>(n));
      for (index_t i = 0; i < n; ++i)
        want[static_cast<std::size_t>(i)] = hx[static_cast<std::size_t>(n - 1 - i)] - hy[static_cast<std::size_t>(i)];
      test::expect_equal(r.to_host(), want);

      // Reversed out: element i of the result lands at n-1-i.
      auto o = ufunc::zeros<int>(shape{n});
      sub(x, y, ufunc::out(o.view().sliced(0, -1, -n - 1, -1)));
      std::vector<int> wo(static_cast<std::size_t>(n));
      for (index_t i = 0; i < n; ++i)
        wo[static_cast<std::size_t>(n - 1 - i)] = hx[static_cast<std::size_t>(i)] - hy[static_cast<std::size_t>(i)];
      test::expect_equal(o.to_host(), wo);
    }
  }
  SUBCASE("2-D, both axes reversed by explicit strides, broadcast against a row") {
    const auto hx = test::random_vector<int>(35, seed + 2, -1000, 1000);
    const auto hy = test::random_vector<int>(7, seed + 3, -1000, 1000);
    auto x = dev(hx, {5, 7});
    const auto y = dev(hy, {7});
    const ref_operand rev{{5, 7}, {-7, -1}, 34};
    auto r = sub(view_of(x, rev), y);
    CHECK(r.shape() == shape{5, 7});
    test::expect_equal(r.to_host(),
                       reference<int>({5, 7}, [](int a, int b) { return a - b; }, H(hx, rev), H(hy, {7})));
  }
}

TEST_CASE("vectorize: zero-stride (broadcast) views as inputs") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  auto f = ufunc::vectorize([] UFUNC_HD (int a, int b) { return 5 * a - b; });
  const auto hrow = test::random_vector<int>(3, seed, -1000, 1000);
  const auto hcol = test::random_vector<int>(4, seed + 1, -1000, 1000);
  auto row = ufunc::to_device(hrow);
  auto col = ufunc::to_device(hcol);
  const ref_operand rows{{4, 3}, {0, 1}, 0}, cols{{4, 3}, {1, 0}, 0};
  auto r = f(view_of(row, rows), view_of(col, cols));
  CHECK(r.shape() == shape{4, 3});
  std::vector<int> want(12);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j) want[static_cast<std::size_t>(i * 3 + j)] = 5 * hrow[static_cast<std::size_t>(j)] - hcol[static_cast<std::size_t>(i)];
  test::expect_equal(r.to_host(), want);

  // One element seen (1<<20)+7 times through a zero stride.
  const index_t n = (1 << 20) + 7;
  auto one = ufunc::full<int>(shape{1}, hrow[0]);
  const auto hz = test::random_vector<int>(static_cast<std::size_t>(n), seed + 2, -1000, 1000);
  auto r2 = f(ufunc::make_view(one.data(), shape{n}, {0}), ufunc::to_device(hz));
  std::vector<int> w2(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < w2.size(); ++i) w2[i] = 5 * hrow[0] - hz[i];
  test::expect_equal(r2.to_host(), w2);
}

TEST_CASE("vectorize: transposed, permuted and sliced non-contiguous inputs") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  auto f = ufunc::vectorize([] UFUNC_HD (int a, int b) { return 2 * a - b; });
  auto fr = [](int a, int b) { return 2 * a - b; };

  SUBCASE("transposed matrix plus a contiguous one") {
    const auto ha = test::random_vector<int>(37 * 53, seed, -1000, 1000);
    const auto hb = test::random_vector<int>(53 * 37, seed + 1, -1000, 1000);
    auto a = dev(ha, {37, 53});
    const auto b = dev(hb, {53, 37});
    auto r = f(a.view().transposed(), b);
    CHECK(r.shape() == shape{53, 37});
    test::expect_equal(r.to_host(), reference<int>({53, 37}, fr, H(ha, ref_operand{{53, 37}, {1, 53}, 0}), H(hb, {53, 37})));
  }
  SUBCASE("a large transposed matrix (several host chunks, rows split across them)") {
    const auto ha = test::random_vector<int>(1031 * 1017, seed + 2, -1000, 1000);
    auto a = dev(ha, {1031, 1017});
    auto r = f(a.view().transposed(), 7);
    std::vector<int> want(ha.size());
    for (std::size_t i = 0; i < 1017; ++i)
      for (std::size_t j = 0; j < 1031; ++j) want[i * 1031 + j] = 2 * ha[j * 1017 + i] - 7;
    test::expect_equal(r.to_host(), want);
  }
  SUBCASE("rows [1::3], columns [::2]") {
    const auto ha = test::random_vector<int>(60 * 40, seed + 3, -1000, 1000);
    const auto hb = test::random_vector<int>(20, seed + 4, -1000, 1000);
    auto a = dev(ha, {60, 40});
    const auto s = a.view().sliced(0, 1, 60, 3).sliced(1, 0, 40, 2);
    REQUIRE(s.shape() == shape{20, 20});
    auto r = f(s, dev(hb, {20, 1}));
    // row 1 + 3i, column 2j: offset 40 + i*120 + 2j
    test::expect_equal(r.to_host(), reference<int>({20, 20}, fr, H(ha, ref_operand{{20, 20}, {120, 2}, 40}), H(hb, {20, 1})));
  }
  SUBCASE("rank-3 permutation") {
    const auto ha = test::random_vector<int>(2 * 3 * 4, seed + 5, -1000, 1000);
    auto a = dev(ha, {2, 3, 4});
    const auto p = a.view().permuted({2, 0, 1});  // shape (4,2,3)
    auto r = f(p, 1);
    test::expect_equal(r.to_host(), reference<int>({4, 2, 3}, [](int x) { return 2 * x - 1; }, H(ha, ref_operand{{4, 2, 3}, {1, 12, 4}, 0})));
  }
}

TEST_CASE("vectorize: non-contiguous out views, the elements between them untouched") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  auto f = ufunc::vectorize([] UFUNC_HD (float a, float b) { return a - b; });
  const float sentinel = -12345.0f;

  SUBCASE("every other column") {
    const auto ha = test::random_vector<float>(12, seed);
    const auto hb = test::random_vector<float>(3, seed + 1);
    auto buf = ufunc::full<float>(shape{4, 6}, sentinel);
    const auto o = buf.view().sliced(1, 0, 6, 2);
    auto ret = f(dev(ha, {4, 3}), dev(hb, {3}), ufunc::out(o));
    CHECK(ret.data() == buf.data());
    const auto got = buf.to_host();
    std::vector<float> want(24, sentinel);
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 3; ++j) want[static_cast<std::size_t>(i * 6 + 2 * j)] = ha[static_cast<std::size_t>(i * 3 + j)] - hb[static_cast<std::size_t>(j)];
    test::expect_equal(got, want);
  }
  SUBCASE("transposed out") {
    const auto ha = test::random_vector<float>(12, seed + 2);
    auto buf = ufunc::full<float>(shape{3, 4}, sentinel);
    f(dev(ha, {4, 3}), 0.5f, ufunc::out(buf.view().transposed()));
    std::vector<float> want(12);
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 3; ++j) want[static_cast<std::size_t>(j * 4 + i)] = ha[static_cast<std::size_t>(i * 3 + j)] - 0.5f;
    test::expect_equal(buf.to_host(), want);
  }
  SUBCASE("stride 2 over a large 1-D buffer") {
    for (index_t n : {1, 3, 4097, (1 << 20) + 7}) {
      INFO("n " << n);
      const auto ha = test::random_vector<float>(static_cast<std::size_t>(n), seed + 3);
      auto buf = ufunc::full<float>(shape{2 * n + 1}, sentinel);
      f(ufunc::to_device(ha), 1.0f, ufunc::out(ufunc::make_view(buf.data() + 1, shape{n}, {2})));
      std::vector<float> want(static_cast<std::size_t>(2 * n + 1), sentinel);
      for (index_t i = 0; i < n; ++i) want[static_cast<std::size_t>(1 + 2 * i)] = ha[static_cast<std::size_t>(i)] - 1.0f;
      test::expect_equal(buf.to_host(), want);
    }
  }
}
