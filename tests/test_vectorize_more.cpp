// ufunc::vectorize, continued: several outputs, the host target and host
// containers, empty arrays, vector-width edges, misalignment, math accuracy and
// streams (see test_vectorize.cpp for the reference scheme; 1 to 8 inputs and
// ranks 0 to 8 are in test_vectorize_ranks.cpp, more than 2^31 elements in
// test_vectorize_large.cpp).
#include "vectorize_support.hpp"

// ---------------------------------------------------------------------------
// Several outputs

TEST_CASE("vectorize: several outputs come back as a tuple of arrays") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  auto sum_prod = ufunc::vectorize([] UFUNC_HD (float x, float y) {
    return cuda::std::make_pair(x - y, static_cast<int>(x * y));
  });
  auto three = ufunc::vectorize([] UFUNC_HD (int a, int b) {
    return cuda::std::make_tuple(a - b, a > b, static_cast<double>(a) * 0.5);
  });

  for (index_t n : {1, 3, 4097, (1 << 20) + 7}) {
    INFO("n " << n);
    const auto hx = test::random_vector<float>(static_cast<std::size_t>(n), seed);
    const auto hy = test::random_vector<float>(static_cast<std::size_t>(n), seed + 1);
    auto [d, p] = sum_prod(ufunc::to_device(hx), ufunc::to_device(hy));
    static_assert(std::is_same_v<decltype(d), ufunc::array<float>>);
    static_assert(std::is_same_v<decltype(p), ufunc::array<int>>);
    std::vector<float> wd(static_cast<std::size_t>(n));
    std::vector<int> wp(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < wd.size(); ++i) {
      wd[i] = hx[i] - hy[i];
      wp[i] = static_cast<int>(hx[i] * hy[i]);
    }
    test::expect_equal(d.to_host(), wd);
    test::expect_equal(p.to_host(), wp);
  }

  // Broadcast inputs (N-d path), three outputs of three types.
  const auto ha = test::random_vector<int>(4, seed + 2, -100, 100);
  const auto hb = test::random_vector<int>(3, seed + 3, -100, 100);
  auto r = three(dev(ha, {4, 1}), dev(hb, {3}));
  static_assert(std::is_same_v<decltype(r), std::tuple<ufunc::array<int>, ufunc::array<bool>, ufunc::array<double>>>);
  CHECK(std::get<0>(r).shape() == shape{4, 3});
  CHECK(std::get<1>(r).shape() == shape{4, 3});
  CHECK(std::get<2>(r).shape() == shape{4, 3});
  test::expect_equal(std::get<0>(r).to_host(), reference<int>({4, 3}, [](int a, int b) { return a - b; }, H(ha, {4, 1}), H(hb, {3})));
  test::expect_equal(std::get<1>(r).to_host(), reference<bool>({4, 3}, [](int a, int b) { return a > b; }, H(ha, {4, 1}), H(hb, {3})));
  test::expect_equal(std::get<2>(r).to_host(), reference<double>({4, 3}, [](int a, int) { return a * 0.5; }, H(ha, {4, 1}), H(hb, {3})));

  // Long broadcast rows, three outputs.
  const std::vector<index_t> dl{3, 5003}, dr{5003};
  const auto hl = test::random_vector<int>(nelem(dl), seed + 4, -100, 100);
  const auto hr = test::random_vector<int>(nelem(dr), seed + 5, -100, 100);
  auto rl = three(dev(hl, dl), dev(hr, dr));
  test::expect_equal(std::get<0>(rl).to_host(), reference<int>(dl, [](int a, int b) { return a - b; }, H(hl, dl), H(hr, dr)));
  test::expect_equal(std::get<1>(rl).to_host(), reference<bool>(dl, [](int a, int b) { return a > b; }, H(hl, dl), H(hr, dr)));
  test::expect_equal(std::get<2>(rl).to_host(), reference<double>(dl, [](int a, int) { return a * 0.5; }, H(hl, dl), H(hr, dr)));
}

TEST_CASE("vectorize: several outputs into out(a, b)") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  auto divmod = ufunc::vectorize([] UFUNC_HD (int a, int b) { return cuda::std::make_pair(a / b, a % b); });
  const std::size_t n = 4097;
  const auto ha = test::random_vector<int>(n, seed, -100000, 100000);
  auto hb = test::random_vector<int>(n, seed + 1, 1, 1000);
  const auto a = ufunc::to_device(ha);
  const auto b = ufunc::to_device(hb);
  std::vector<int> wq(n), wr(n);
  for (std::size_t i = 0; i < n; ++i) {
    wq[i] = ha[i] / hb[i];
    wr[i] = ha[i] % hb[i];
  }

  auto q = ufunc::empty<int>(shape{static_cast<index_t>(n)});
  auto rem = ufunc::empty<long long>(shape{static_cast<index_t>(n)});  // a wider type than the result
  auto ret = divmod(a, b, ufunc::out(q, rem));
  static_assert(std::is_same_v<decltype(ret), std::tuple<ufunc::array_view<int>, ufunc::array_view<long long>>>);
  CHECK(std::get<0>(ret).data() == q.data());
  CHECK(std::get<1>(ret).data() == rem.data());
  test::expect_equal(q.to_host(), wq);
  test::expect_equal(rem.to_host(), std::vector<long long>(wr.begin(), wr.end()));

  // Non-contiguous outs: reversed and every other element of a sentinel buffer.
  auto qb = ufunc::full<int>(shape{static_cast<index_t>(n)}, -1);
  auto rb = ufunc::full<int>(shape{static_cast<index_t>(2 * n)}, -1);
  const auto nn = static_cast<index_t>(n);
  divmod(a, b, ufunc::out(qb.view().sliced(0, -1, -nn - 1, -1), rb.view().sliced(0, 1, 2 * nn, 2)));
  std::vector<int> wqb(n), wrb(2 * n, -1);
  for (std::size_t i = 0; i < n; ++i) {
    wqb[n - 1 - i] = wq[i];
    wrb[1 + 2 * i] = wr[i];
  }
  test::expect_equal(qb.to_host(), wqb);
  test::expect_equal(rb.to_host(), wrb);
}

// ---------------------------------------------------------------------------
// The host target and host containers

TEST_CASE("vectorize: host target with host arrays and a plain generic lambda, in every build") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const std::size_t n = (1u << 20) + 7;
  const auto hi = test::random_vector<int>(n, seed, -1000, 1000);
  const auto hd = test::random_vector<double>(n, seed + 1);
  auto mul = ufunc::vectorize<ufunc::target::host>([](auto a, auto b) { return a * b; });
  static_assert(std::is_same_v<decltype(mul)::target_type, ufunc::target::host>);

  const auto ai = ufunc::asarray<ufunc::target::host>(hi);
  const auto ad = ufunc::asarray<ufunc::target::host>(hd);
  auto r = mul(ai, ad);
  static_assert(std::is_same_v<decltype(r), ufunc::host_array<double>>);
  auto ri = mul(ai, 3);
  static_assert(std::is_same_v<decltype(ri), ufunc::host_array<int>>);
  std::vector<double> want(n);
  std::vector<int> wanti(n);
  for (std::size_t i = 0; i < n; ++i) {
    want[i] = hi[i] * hd[i];
    wanti[i] = hi[i] * 3;
  }
  // Host memory: readable without to_host().
  std::size_t bad = 0;
  for (std::size_t i = 0; i < n; ++i) bad += r.data()[i] != want[i];
  CHECK(bad == 0);
  test::expect_equal(ri.to_host(), wanti);

  // Host vectors in, host vectors out.
  auto rv = mul(hi, hd);
  static_assert(std::is_same_v<decltype(rv), std::vector<double>>);
  test::expect_equal(rv, want);
}

TEST_CASE("vectorize: the host target calls f exactly once per element") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  std::atomic<long long> calls{0};
  auto counted = ufunc::vectorize<ufunc::target::host>([&calls](float x, float y) {
    calls.fetch_add(1, std::memory_order_relaxed);
    return x - y;
  });
  for (std::size_t n : {0u, 1u, 3u, 4097u, 16384u, 16385u, (1u << 20) + 7u}) {
    INFO("n " << n);
    const auto hx = test::random_vector<float>(n, seed + n);
    auto x = ufunc::asarray<ufunc::target::host>(hx);
    calls = 0;
    auto r = counted(x, 1.0f);
    CHECK(calls.load() == static_cast<long long>(n));
    std::vector<float> want(n);
    for (std::size_t i = 0; i < n; ++i) want[i] = hx[i] - 1.0f;
    test::expect_equal(r.to_host(), want);
    // The strided (N-d) path too: every other element, reversed.
    if (n >= 2) {
      calls = 0;
      const auto v = x.view().sliced(0, -1, -static_cast<index_t>(n) - 1, -2);
      auto rs = counted(v, v);
      CHECK(calls.load() == static_cast<long long>((n + 1) / 2));
      test::expect_equal(rs.to_host(), std::vector<float>((n + 1) / 2, 0.0f));
    }
  }
}

TEST_CASE("vectorize: std::vector inputs give std::vector results") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  auto sub = ufunc::vectorize([] UFUNC_HD (float x, float y) { return x - y; });
  auto two = ufunc::vectorize([] UFUNC_HD (float x, float y) { return cuda::std::make_pair(x - y, static_cast<int>(x < y)); });
  for (std::size_t n : {0u, 1u, 3u, 4097u, (1u << 20) + 7u}) {
    INFO("n " << n);
    const auto hx = test::random_vector<float>(n, seed);
    const auto hy = test::random_vector<float>(n, seed + 1);
    auto r = sub(hx, hy);
    static_assert(std::is_same_v<decltype(r), std::vector<float>>);
    std::vector<float> want(n), wsc(n);
    for (std::size_t i = 0; i < n; ++i) {
      want[i] = hx[i] - hy[i];
      wsc[i] = hx[i] - 0.75f;
    }
    test::expect_equal(r, want);
    test::expect_equal(sub(hx, 0.75f), wsc);

    auto [d, lt] = two(hx, hy);
    static_assert(std::is_same_v<decltype(d), std::vector<float>>);
    static_assert(std::is_same_v<decltype(lt), std::vector<int>>);
    test::expect_equal(d, want);
    REQUIRE(lt.size() == n);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < n; ++i) bad += lt[i] != static_cast<int>(hx[i] < hy[i]);
    CHECK(bad == 0);
  }
  // A vector of one element broadcasts; a device array mixes with a vector.
  const auto hx = test::random_vector<float>(100, seed + 2);
  const std::vector<float> one{0.5f};
  std::vector<float> want(100);
  for (std::size_t i = 0; i < 100; ++i) want[i] = hx[i] - 0.5f;
  test::expect_equal(sub(hx, one), want);
  auto mixed = sub(ufunc::to_device(hx), one);
  static_assert(std::is_same_v<decltype(mixed), std::vector<float>>);
  test::expect_equal(mixed, want);
  // Host target, host vectors.
  auto hsub = ufunc::vectorize<ufunc::target::host>([] UFUNC_HD (float x, float y) { return x - y; });
  test::expect_equal(hsub(hx, one), want);
}

// std::vector<bool> has no element storage: results of type bool must still come
// back as std::vector<bool>, on the device target and on the host target.
TEST_CASE("vectorize: std::vector inputs with a bool result") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const auto hx = test::random_vector<float>(4097, seed);
  std::vector<bool> want(hx.size());
  for (std::size_t i = 0; i < hx.size(); ++i) want[i] = hx[i] > 0.0f;
  auto positive = ufunc::vectorize([] UFUNC_HD (float x) { return x > 0.0f; });
  test::expect_equal(positive(ufunc::to_device(hx)).to_host(), want);
  auto r = positive(hx);
  static_assert(std::is_same_v<decltype(r), std::vector<bool>>);
  test::expect_equal(r, want);
  auto hpositive = ufunc::vectorize<ufunc::target::host>([] UFUNC_HD (float x) { return x > 0.0f; });
  auto rh = hpositive(hx);
  static_assert(std::is_same_v<decltype(rh), std::vector<bool>>);
  test::expect_equal(rh, want);
  // Several outputs, one of them bool.
  auto split = ufunc::vectorize<ufunc::target::host>([] UFUNC_HD (float x) { return cuda::std::make_pair(x > 0.0f, -x); });
  auto [pos, neg] = split(hx);
  static_assert(std::is_same_v<decltype(pos), std::vector<bool>>);
  static_assert(std::is_same_v<decltype(neg), std::vector<float>>);
  test::expect_equal(pos, want);
  std::vector<float> wneg(hx.size());
  for (std::size_t i = 0; i < hx.size(); ++i) wneg[i] = -hx[i];
  test::expect_equal(neg, wneg);
}

// ---------------------------------------------------------------------------
// Arity, rank, emptiness, sizes

TEST_CASE("vectorize: empty arrays give empty results") {
  auto sub = ufunc::vectorize([] UFUNC_HD (float x, float y) { return x - y; });
  struct row {
    std::vector<index_t> a, b, out;
  };
  const std::vector<row> table = {
      {{0}, {1}, {0}}, {{0}, {}, {0}}, {{0, 3}, {1, 3}, {0, 3}}, {{1, 0}, {5, 1}, {5, 0}}, {{2, 0, 3}, {3}, {2, 0, 3}},
      {{0}, {0}, {0}}};
  for (const auto& c : table) {
    INFO("a " << test::dims_str(c.a) << " b " << test::dims_str(c.b));
    const auto a = dev(std::vector<float>(nelem(c.a), 1.0f), c.a);
    const auto b = dev(std::vector<float>(nelem(c.b), 2.0f), c.b);
    auto r = sub(a, b);
    CHECK(r.shape() == test::shape_of(c.out));
    CHECK(r.size() == 0);
    CHECK(r.to_host().empty());
    auto o = ufunc::empty<float>(test::shape_of(c.out));
    auto ret = sub(a, b, ufunc::out(o));
    CHECK(ret.shape() == test::shape_of(c.out));
  }
  auto two = ufunc::vectorize([] UFUNC_HD (float x) { return cuda::std::make_pair(x, x); });
  auto [p, q] = two(ufunc::empty<float>(shape{0, 4}));
  CHECK(p.shape() == shape{0, 4});
  CHECK(q.size() == 0);
  // Empty host vectors.
  CHECK(sub(std::vector<float>{}, 1.0f).empty());
}

namespace {
template <class T>
void check_sizes(std::uint64_t seed) {
  auto sub = ufunc::vectorize([] UFUNC_HD (T x, T y) { return static_cast<T>(x - y); });
  const std::vector<index_t> sizes = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 255, 257, 4095, 4096, 4097, 16383, 16384, 16385, (1 << 20) + 7};
  for (index_t n : sizes) {
    INFO(test::type_name<T>() << " n " << n << " seed " << seed);
    const auto un = static_cast<std::size_t>(n);
    const auto hx = test::random_vector<T>(un, seed + static_cast<std::uint64_t>(n), -60, 60);
    const auto hy = test::random_vector<T>(un, seed + static_cast<std::uint64_t>(n) + 1, -60, 60);
    const auto x = ufunc::to_device(hx);
    const auto y = ufunc::to_device(hy);
    std::vector<T> want(un), wb(un);
    for (std::size_t i = 0; i < un; ++i) {
      want[i] = static_cast<T>(hx[i] - hy[i]);
      wb[i] = static_cast<T>(hx[i] - hy[0]);
    }
    test::expect_equal(sub(x, y).to_host(), want);                                      // flat
    test::expect_equal(sub(x, ufunc::make_view(y.data(), shape{1})).to_host(), wb);     // N-d: a (1,) array
    test::expect_equal(sub(x, hy[0]).to_host(), wb);                                    // flat: scalar
    auto o = ufunc::empty<T>(shape{n});
    sub(x, y, ufunc::out(o));
    test::expect_equal(o.to_host(), want);
    // As a (2, n) broadcast so that rows end at every possible lane.
    auto r2 = sub(x, ufunc::make_view(y.data(), shape{2, 1}, {0, 0}));
    CHECK(r2.shape() == shape{2, n});
    std::vector<T> w2(2 * un);
    for (std::size_t i = 0; i < un; ++i) w2[i] = w2[un + i] = wb[i];
    test::expect_equal(r2.to_host(), w2);
  }
}

template <class T>
void check_misaligned(std::uint64_t seed) {
  auto sub = ufunc::vectorize([] UFUNC_HD (T x, T y) { return static_cast<T>(x - y); });
  for (index_t n : {1, 3, 4, 17, 4097, (1 << 20) + 7}) {
    INFO(test::type_name<T>() << " n " << n << " seed " << seed);
    const auto un = static_cast<std::size_t>(n);
    const auto hx = test::random_vector<T>(un + 1, seed, -60, 60);
    const auto hy = test::random_vector<T>(un + 1, seed + 1, -60, 60);
    auto x = ufunc::to_device(hx);
    auto y = ufunc::to_device(hy);
    const auto xs = ufunc::make_view(x.data() + 1, shape{n});  // one element off the allocation's alignment
    std::vector<T> want(un), want_mixed(un);
    for (std::size_t i = 0; i < un; ++i) {
      want[i] = static_cast<T>(hx[i + 1] - hy[i + 1]);
      want_mixed[i] = static_cast<T>(hx[i + 1] - hy[i]);
    }
    test::expect_equal(sub(xs, ufunc::make_view(y.data() + 1, shape{n})).to_host(), want);
    test::expect_equal(sub(xs, ufunc::make_view(y.data(), shape{n})).to_host(), want_mixed);
    // Misaligned against a broadcast element (strided/row kernels).
    std::vector<T> wb(un);
    for (std::size_t i = 0; i < un; ++i) wb[i] = static_cast<T>(hx[i + 1] - hy[0]);
    test::expect_equal(sub(xs, ufunc::make_view(y.data(), shape{1})).to_host(), wb);
    // A misaligned out.
    auto buf = ufunc::full<T>(shape{n + 1}, T(99));
    sub(xs, ufunc::make_view(y.data(), shape{n}), ufunc::out(ufunc::make_view(buf.data() + 1, shape{n})));
    auto got = buf.to_host();
    CHECK(got[0] == T(99));
    test::expect_equal(std::vector<T>(got.begin() + 1, got.end()), want_mixed);
  }
}
}  // namespace

TEST_CASE("vectorize: sizes around vector widths, blocks and host chunks") {
  const auto seed = test::fresh_seed();
  test::for_each_type<float, double, std::int8_t, std::int16_t, std::int64_t>(
      [&](auto t) { check_sizes<decltype(t)>(seed); });
}

TEST_CASE("vectorize: misaligned views take the unvectorized path") {
  const auto seed = test::fresh_seed();
  test::for_each_type<float, double, std::int8_t, std::int16_t>([&](auto t) { check_misaligned<decltype(t)>(seed); });
}

// ---------------------------------------------------------------------------
// Math functions: tolerances from the functions' documented accuracy.

TEST_CASE("vectorize: expf, sqrtf and a fused multiply-add within their error bounds") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const std::size_t n = 100003;
  const auto hx = test::random_vector<float>(n, seed, -80.0, 80.0);
  const auto hy = test::random_vector<float>(n, seed + 1, 0.0, 1e6);
  const auto hz = test::random_vector<float>(n, seed + 2, -1e3, 1e3);
  const auto x = ufunc::to_device(hx);
  const auto y = ufunc::to_device(hy);
  const auto z = ufunc::to_device(hz);

  // CUDA's expf is within 2 ulps of the exact value, glibc's within 1; the
  // reference (double exp rounded to float) is within 0.5: allow 3.
  auto e = ufunc::vectorize([] UFUNC_HD (float v) { return expf(v); });
  std::vector<float> we(n);
  for (std::size_t i = 0; i < n; ++i) we[i] = static_cast<float>(std::exp(static_cast<double>(hx[i])));
  test::expect_ulps(e(x).to_host(), we, 3);

  // sqrtf is correctly rounded (IEEE) on both, and so is the double sqrt rounded to float.
  auto s = ufunc::vectorize([] UFUNC_HD (float v) { return sqrtf(v); });
  std::vector<float> ws(n);
  for (std::size_t i = 0; i < n; ++i) ws[i] = static_cast<float>(std::sqrt(static_cast<double>(hy[i])));
  test::expect_ulps(s(y).to_host(), ws, 0);

  // a*x + y may be fused (one rounding) or not (two): the result is within half
  // an ulp of a*x plus half an ulp of the result from the exact value.
  auto axpy = ufunc::vectorize([] UFUNC_HD (float a, float v, float w) { return a * v + w; });
  const float a = 1.7f;
  const auto r = axpy(a, x, z).to_host();
  std::size_t bad = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double exact = static_cast<double>(a) * hx[i] + hz[i];
    // half an ulp of v is at most 2^-24 |v|; use 2^-23 (a full ulp of each) for slack
    const double bound = (std::fabs(static_cast<double>(a) * hx[i]) + std::fabs(exact)) * std::ldexp(1.0, -23) + 1e-30;
    bad += !(std::fabs(r[i] - exact) <= bound);  // NaN (unwritten) counts as bad
  }
  CHECK(bad == 0);
}

// ---------------------------------------------------------------------------
// Streams

TEST_CASE("vectorize: calls take a stream after the inputs (and after out)") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const std::size_t n = 4097;
  const auto hx = test::random_vector<float>(n, seed);
  std::vector<float> want(n);
  for (std::size_t i = 0; i < n; ++i) want[i] = hx[i] - 3.0f;
  auto sub = ufunc::vectorize([] UFUNC_HD (float x, float y) { return x - y; });

  const ufunc::stream_ref def{};
  auto x = ufunc::to_device(hx, def);
  test::expect_equal(sub(x, 3.0f, def).to_host(), want);

#if defined(UFUNC_BACKEND_CUDA)
  cudaStream_t st = nullptr;
  REQUIRE(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking) == cudaSuccess);
  {
    auto xs = ufunc::to_device(hx, shape{static_cast<index_t>(n)}, st);
    CHECK(xs.stream().get() == st);
    auto r = sub(xs, 3.0f, st);  // a raw cudaStream_t
    CHECK(r.stream().get() == st);
    auto o = ufunc::empty<float>(shape{static_cast<index_t>(n)}, st);
    sub(xs, 3.0f, ufunc::out(o), ufunc::stream_ref(st));
    ufunc::stream_ref(st).synchronize();
    test::expect_equal(r.to_host(), want);
    test::expect_equal(o.to_host(), want);
  }
  ufunc::synchronize();
  CHECK(cudaStreamDestroy(st) == cudaSuccess);
#endif
}
