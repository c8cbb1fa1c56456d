// ufunc::vectorize: broadcasting, type conversion, generic functors, out buffers,
// in-place use, strided views (negative, zero, transposed, sliced, misaligned),
// several outputs, host containers, the host target, 1 to 8 inputs, ranks 0 to 8,
// empty arrays and sizes around vector widths. Every value is checked against a
// host reference that evaluates the broadcast by index math (test_support.hpp).
#include "test_support.hpp"

#include <atomic>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

using ufunc::index_t;
using ufunc::shape;
using test::ref_operand;

namespace {

/// A generic binary function object (nvcc does not allow generic
/// __host__ __device__ lambdas): the result type follows the argument types.
struct add_op {
  template <class A, class B>
  UFUNC_HD auto operator()(A a, B b) const {
    return a + b;
  }
};

/// A reference operand: host data and how the result indexes it.
template <class T>
struct href {
  const std::vector<T>* data;
  ref_operand lay;
};
template <class T>
href<T> H(const std::vector<T>& d, const ref_operand& l) {
  return {&d, l};
}
template <class T>
href<T> H(const std::vector<T>& d, const std::vector<index_t>& dims) {
  return {&d, test::contiguous(dims)};
}

/// r[i] = f(in_0[...], in_1[...], ...) over the row-major result of shape `out`.
template <class R, class F, class... T>
std::vector<R> reference(const std::vector<index_t>& out, F f, const href<T>&... in) {
  const index_t n = test::count_of(out);
  std::vector<R> r(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i) {
    const auto idx = test::unravel(i, out);
    r[static_cast<std::size_t>(i)] =
        static_cast<R>(f((*in.data)[static_cast<std::size_t>(test::bcast_offset(idx, in.lay))]...));
  }
  return r;
}

template <class T>
ufunc::array<T> dev(const std::vector<T>& h, const std::vector<index_t>& dims) {
  return ufunc::to_device(h, test::shape_of(dims));
}

template <class T, class Tg>
ufunc::array_view<T, Tg> view_of(ufunc::array<T, Tg>& base, const ref_operand& l) {
  return ufunc::make_view<Tg>(base.data() + l.offset, test::shape_of(l.dims), l.strides);
}

/// Broadcast of compatible dims (each dim is 1 or the common value).
std::vector<index_t> bcast_dims(const std::vector<std::vector<index_t>>& shapes) {
  std::size_t rank = 0;
  for (const auto& s : shapes) rank = std::max(rank, s.size());
  std::vector<index_t> out(rank, 1);
  for (const auto& s : shapes)
    for (std::size_t k = 0; k < s.size(); ++k) {
      auto& o = out[rank - s.size() + k];
      if (s[k] != 1) o = s[k];
    }
  return out;
}

std::size_t nelem(const std::vector<index_t>& dims) { return static_cast<std::size_t>(test::count_of(dims)); }

struct bcase {
  std::vector<index_t> a, b, out;
};
// What NumPy gives for a + b with these shapes.
const std::vector<bcase> numpy_table = {
    {{4, 3}, {3}, {4, 3}},
    {{4, 1}, {3}, {4, 3}},
    {{2, 1, 3}, {4, 1}, {2, 4, 3}},
    {{}, {5}, {5}},
    {{5}, {}, {5}},
    {{}, {}, {}},
    {{0}, {1}, {0}},
    {{1}, {0}, {0}},
    {{0, 3}, {1, 3}, {0, 3}},
    {{1, 0}, {5, 1}, {5, 0}},
    {{3, 1}, {1, 4}, {3, 4}},
    {{8, 1, 6, 1}, {7, 1, 5}, {8, 7, 6, 5}},
    {{15, 3, 5}, {15, 1, 5}, {15, 3, 5}},
    {{15, 3, 5}, {3, 1}, {15, 3, 5}},
    {{1, 1}, {1}, {1, 1}},
    {{5, 4}, {1}, {5, 4}},
    {{1, 2, 1, 2, 1, 2, 1, 2}, {2, 1, 2, 1, 2, 1, 2, 1}, {2, 2, 2, 2, 2, 2, 2, 2}},
    {{3}, {1, 1, 1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1, 1, 3}},
    {{4097}, {1}, {4097}},
    {{3, 6007}, {3, 1}, {3, 6007}},
    {{6007, 3}, {3}, {6007, 3}},
    {{1, 6007}, {3, 1}, {3, 6007}},
    // Long rows (the CUDA backend's row-tiled kernel): rows that start aligned or
    // not, lengths around a tile, broadcast and contiguous operands.
    {{4, 4096}, {4096}, {4, 4096}},
    {{5, 1024}, {5, 1}, {5, 1024}},
    {{2, 3, 2048}, {3, 1}, {2, 3, 2048}},
    {{512}, {1}, {512}},
    {{511}, {1}, {511}},
    {{2, 513}, {1, 513}, {2, 513}},
    {{2, 4097}, {2, 1}, {2, 4097}},
    {{16385}, {1}, {16385}},
    {{3, 1, 70001}, {1, 2, 1}, {3, 2, 70001}},
};

/// Argument I of a call: a scalar at position S, else the array.
template <std::size_t I, std::size_t S>
decltype(auto) arg_at(std::vector<ufunc::array<int>>& arrs, const std::vector<std::vector<int>>& hs) {
  if constexpr (I == S)
    return int(hs[I][0]);
  else
    return (arrs[I]);
}

/// Calls a K-input ufunc on arrays of assorted broadcast shapes (a scalar at
/// position S, none when S >= K) and checks it against the reference.
template <std::size_t S, class UF, class RF, std::size_t... I>
void check_inputs(const UF& uf, RF rf, std::uint64_t seed, std::index_sequence<I...>) {
  constexpr std::size_t K = sizeof...(I);
  const std::vector<std::vector<index_t>> pool = {{3, 4, 5}, {4, 5}, {5}, {1, 4, 1}, {3, 1, 1}, {}, {1, 1, 5}, {4, 1}};
  std::vector<std::vector<index_t>> dims(K);
  for (std::size_t k = 0; k < K; ++k) dims[k] = k == S ? std::vector<index_t>{} : pool[(k + K) % pool.size()];
  std::vector<std::vector<int>> hs;
  std::vector<ufunc::array<int>> arrs;
  for (std::size_t k = 0; k < K; ++k) {
    hs.push_back(test::random_vector<int>(nelem(dims[k]), seed + k, -50, 50));
    arrs.push_back(dev(hs[k], dims[k]));
  }
  const auto out = bcast_dims(dims);
  INFO("inputs " << K << ", scalar at " << S << ", result " << test::dims_str(out));
  auto r = uf(arg_at<I, S>(arrs, hs)...);
  CHECK(r.shape() == test::shape_of(out));
  test::expect_equal(r.to_host(), reference<int>(out, rf, href<int>{&hs[I], test::contiguous(dims[I])}...));
}

}  // namespace

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
    scale(di, ufunc::out(oi));
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
// Host containers

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

TEST_CASE("vectorize: one to eight inputs, arrays and scalars in every position") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  auto f1 = ufunc::vectorize([] UFUNC_HD (int a) { return 3 * a + 1; });
  auto r1 = [](int a) { return 3 * a + 1; };
  auto f2 = ufunc::vectorize([] UFUNC_HD (int a, int b) { return a - 2 * b; });
  auto r2 = [](int a, int b) { return a - 2 * b; };
  auto f3 = ufunc::vectorize([] UFUNC_HD (int a, int b, int c) { return a - 2 * b + 3 * c; });
  auto r3 = [](int a, int b, int c) { return a - 2 * b + 3 * c; };
  auto f4 = ufunc::vectorize([] UFUNC_HD (int a, int b, int c, int d) { return a - 2 * b + 3 * c - 4 * d; });
  auto r4 = [](int a, int b, int c, int d) { return a - 2 * b + 3 * c - 4 * d; };
  auto f5 = ufunc::vectorize([] UFUNC_HD (int a, int b, int c, int d, int e) { return a - 2 * b + 3 * c - 4 * d + 5 * e; });
  auto r5 = [](int a, int b, int c, int d, int e) { return a - 2 * b + 3 * c - 4 * d + 5 * e; };
  auto f6 = ufunc::vectorize(
      [] UFUNC_HD (int a, int b, int c, int d, int e, int f) { return a - 2 * b + 3 * c - 4 * d + 5 * e - 6 * f; });
  auto r6 = [](int a, int b, int c, int d, int e, int f) { return a - 2 * b + 3 * c - 4 * d + 5 * e - 6 * f; };
  auto f7 = ufunc::vectorize([] UFUNC_HD (int a, int b, int c, int d, int e, int f, int g) {
    return a - 2 * b + 3 * c - 4 * d + 5 * e - 6 * f + 7 * g;
  });
  auto r7 = [](int a, int b, int c, int d, int e, int f, int g) {
    return a - 2 * b + 3 * c - 4 * d + 5 * e - 6 * f + 7 * g;
  };
  auto f8 = ufunc::vectorize([] UFUNC_HD (int a, int b, int c, int d, int e, int f, int g, int h) {
    return a - 2 * b + 3 * c - 4 * d + 5 * e - 6 * f + 7 * g - 8 * h;
  });
  auto r8 = [](int a, int b, int c, int d, int e, int f, int g, int h) {
    return a - 2 * b + 3 * c - 4 * d + 5 * e - 6 * f + 7 * g - 8 * h;
  };
  // All arrays (scalar position out of range), then one scalar at a middle or last position.
  check_inputs<9>(f1, r1, seed, std::make_index_sequence<1>{});
  check_inputs<0>(f1, r1, seed, std::make_index_sequence<1>{});
  check_inputs<9>(f2, r2, seed, std::make_index_sequence<2>{});
  check_inputs<1>(f2, r2, seed, std::make_index_sequence<2>{});
  check_inputs<9>(f3, r3, seed, std::make_index_sequence<3>{});
  check_inputs<1>(f3, r3, seed, std::make_index_sequence<3>{});
  check_inputs<9>(f4, r4, seed, std::make_index_sequence<4>{});
  check_inputs<3>(f4, r4, seed, std::make_index_sequence<4>{});
  check_inputs<9>(f5, r5, seed, std::make_index_sequence<5>{});
  check_inputs<2>(f5, r5, seed, std::make_index_sequence<5>{});
  check_inputs<9>(f6, r6, seed, std::make_index_sequence<6>{});
  check_inputs<0>(f6, r6, seed, std::make_index_sequence<6>{});
  check_inputs<9>(f7, r7, seed, std::make_index_sequence<7>{});
  check_inputs<6>(f7, r7, seed, std::make_index_sequence<7>{});
  check_inputs<9>(f8, r8, seed, std::make_index_sequence<8>{});
  check_inputs<4>(f8, r8, seed, std::make_index_sequence<8>{});
  check_inputs<7>(f8, r8, seed, std::make_index_sequence<8>{});
}

TEST_CASE("vectorize: rank-0 arrays and scalars") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const auto hv = test::random_vector<float>(6, seed);
  auto sub = ufunc::vectorize([] UFUNC_HD (float x, float y) { return x - y; });

  auto s = sub(hv[0], hv[1]);  // scalars only: a rank-0 result
  static_assert(std::is_same_v<decltype(s), ufunc::array<float>>);
  CHECK(s.ndim() == 0);
  CHECK(s.shape() == shape{});
  CHECK(s.to_host() == std::vector<float>{hv[0] - hv[1]});

  const auto x0 = ufunc::to_device(std::vector<float>{hv[2]}, shape{});
  auto s2 = sub(x0, hv[3]);
  CHECK(s2.shape() == shape{});
  CHECK(s2.to_host() == std::vector<float>{hv[2] - hv[3]});

  const std::vector<float> h5(hv.begin() + 1, hv.end());
  auto v = sub(ufunc::to_device(h5), x0);
  CHECK(v.shape() == shape{5});
  std::vector<float> w5(5);
  for (std::size_t i = 0; i < 5; ++i) w5[i] = h5[i] - hv[2];
  test::expect_equal(v.to_host(), w5);

  auto o = ufunc::full<float>(shape{}, -1.0f);
  auto ret = sub(x0, x0, ufunc::out(o));
  CHECK(ret.shape() == shape{});
  CHECK(o.to_host() == std::vector<float>{0.0f});

  // Scalars only, into an out of shape (2,3): every element gets the value.
  auto o23 = ufunc::full<float>(shape{2, 3}, -1.0f);
  sub(hv[4], hv[5], ufunc::out(o23));
  CHECK(o23.to_host() == std::vector<float>(6, hv[4] - hv[5]));

  // All-size-1 shapes of several ranks are not rank 0 but hold one element.
  auto one = sub(ufunc::to_device(std::vector<float>{hv[0]}, shape{1, 1, 1}), x0);
  CHECK(one.shape() == shape{1, 1, 1});
  CHECK(one.to_host() == std::vector<float>{hv[0] - hv[2]});
}

TEST_CASE("vectorize: ranks 1 to 8 with random broadcast patterns") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  auto f = ufunc::vectorize([] UFUNC_HD (int a, int b, int c) { return a - 3 * b + 5 * c; });
  auto fr = [](int a, int b, int c) { return a - 3 * b + 5 * c; };
  for (int rank = 1; rank <= 8; ++rank) {
    for (int rep = 0; rep < 4; ++rep) {
      std::vector<index_t> target(static_cast<std::size_t>(rank));
      for (auto& d : target) d = 1 + static_cast<index_t>(rng() % (rank <= 4 ? 7 : 3));
      std::vector<std::vector<index_t>> dims(3);
      for (auto& d : dims) {
        const std::size_t drop = static_cast<std::size_t>(rng() % static_cast<unsigned>(rank + 1));
        d.assign(target.begin() + static_cast<std::ptrdiff_t>(drop), target.end());
        for (auto& x : d)
          if (rng() % 3 == 0) x = 1;
      }
      const auto out = bcast_dims(dims);
      INFO("rank " << rank << ": " << test::dims_str(dims[0]) << " " << test::dims_str(dims[1]) << " "
                   << test::dims_str(dims[2]));
      std::vector<std::vector<int>> h;
      for (int k = 0; k < 3; ++k)
        h.push_back(test::random_vector<int>(nelem(dims[static_cast<std::size_t>(k)]), rng(), -1000, 1000));
      auto r = f(dev(h[0], dims[0]), dev(h[1], dims[1]), dev(h[2], dims[2]));
      CHECK(r.shape() == test::shape_of(out));
      test::expect_equal(r.to_host(), reference<int>(out, fr, H(h[0], dims[0]), H(h[1], dims[1]), H(h[2], dims[2])));
    }
  }
}

TEST_CASE("vectorize: rank-8 permuted views as input and as out") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  auto f = ufunc::vectorize([] UFUNC_HD (double a, double b) { return a - b; });
  for (int rep = 0; rep < 4; ++rep) {
    std::vector<index_t> dims(8);
    for (auto& d : dims) d = 1 + static_cast<index_t>(rng() % 3);
    std::vector<int> axes(8);
    std::iota(axes.begin(), axes.end(), 0);
    std::shuffle(axes.begin(), axes.end(), rng);
    const auto st = test::row_major(dims);
    ref_operand perm;
    for (int k : axes) {
      perm.dims.push_back(dims[static_cast<std::size_t>(k)]);
      perm.strides.push_back(st[static_cast<std::size_t>(k)]);
    }
    INFO("dims " << test::dims_str(dims) << " permuted to " << test::dims_str(perm.dims));
    const auto ha = test::random_vector<double>(nelem(dims), rng());
    const auto hb = test::random_vector<double>(nelem(dims), rng());
    auto a = dev(ha, dims);
    const auto b = dev(hb, perm.dims);
    const auto want = reference<double>(perm.dims, [](double x, double y) { return x - y; }, H(ha, perm), H(hb, perm.dims));

    auto r = f(a.view().permuted(axes), b);
    CHECK(r.shape() == test::shape_of(perm.dims));
    test::expect_equal(r.to_host(), want);

    // Out through the same permutation of a fresh buffer: buffer[offset of p] = want[p].
    auto buf = ufunc::zeros<double>(test::shape_of(dims));
    f(a.view().permuted(axes), b, ufunc::out(buf.view().permuted(axes)));
    const auto got = buf.to_host();
    std::vector<double> wbuf(got.size());
    for (index_t i = 0; i < test::count_of(perm.dims); ++i)
      wbuf[static_cast<std::size_t>(test::bcast_offset(test::unravel(i, perm.dims), perm))] = want[static_cast<std::size_t>(i)];
    test::expect_equal(got, wbuf);
  }
}

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
void check_sizes(const char* type, std::uint64_t seed) {
  auto sub = ufunc::vectorize([] UFUNC_HD (T x, T y) { return static_cast<T>(x - y); });
  const std::vector<index_t> sizes = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 255, 257, 4095, 4096, 4097, 16383, 16384, 16385, (1 << 20) + 7};
  for (index_t n : sizes) {
    INFO(type << " n " << n << " seed " << seed);
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
void check_misaligned(const char* type, std::uint64_t seed) {
  auto sub = ufunc::vectorize([] UFUNC_HD (T x, T y) { return static_cast<T>(x - y); });
  for (index_t n : {1, 3, 4, 17, 4097, (1 << 20) + 7}) {
    INFO(type << " n " << n << " seed " << seed);
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
  check_sizes<float>("float", seed);
  check_sizes<double>("double", seed);
  check_sizes<std::int8_t>("int8", seed);
  check_sizes<std::int16_t>("int16", seed);
  check_sizes<std::int64_t>("int64", seed);
}

TEST_CASE("vectorize: misaligned views take the unvectorized path") {
  const auto seed = test::fresh_seed();
  check_misaligned<float>("float", seed);
  check_misaligned<double>("double", seed);
  check_misaligned<std::int8_t>("int8", seed);
  check_misaligned<std::int16_t>("int16", seed);
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
    bad += std::fabs(r[i] - exact) > bound;
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

// ---------------------------------------------------------------------------
// Beyond 32-bit indexing (CUDA selects 64-bit index math above 2^31 elements;
// the host backend has no such switch, and this much work would be slow there).

TEST_CASE("vectorize: more than 2^31 elements" * doctest::skip(!ufunc::cuda_backend)) {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const index_t rows = 32769, cols = 65537;  // 2147581953 > 2^31 results
  const auto hr = test::random_vector<std::int8_t>(static_cast<std::size_t>(cols), seed, -100, 100);
  const auto hc = test::random_vector<std::int8_t>(static_cast<std::size_t>(rows), seed + 1, -100, 100);
  auto add8 = ufunc::vectorize([] UFUNC_HD (std::int8_t a, std::int8_t b) { return static_cast<std::int8_t>(a + b); });
  auto r = add8(dev(hr, {1, cols}), dev(hc, {rows, 1}));  // N-d path
  REQUIRE(r.shape() == shape{rows, cols});
  {
    const auto got = r.to_host();
    std::size_t bad = 0;
    for (std::size_t i = 0; i < static_cast<std::size_t>(rows); ++i)
      for (std::size_t j = 0; j < static_cast<std::size_t>(cols); ++j)
        bad += got[i * static_cast<std::size_t>(cols) + j] != static_cast<std::int8_t>(hr[j] + hc[i]);
    CHECK(bad == 0);
  }
  // Flat path over the same count.
  auto neg = ufunc::vectorize([] UFUNC_HD (std::int8_t a) { return static_cast<std::int8_t>(-a); });
  auto r2 = neg(r);
  const auto got2 = r2.to_host();
  std::size_t bad2 = 0;
  for (std::size_t i = 0; i < static_cast<std::size_t>(rows); ++i)
    for (std::size_t j = 0; j < static_cast<std::size_t>(cols); ++j)
      bad2 += got2[i * static_cast<std::size_t>(cols) + j] != static_cast<std::int8_t>(-static_cast<std::int8_t>(hr[j] + hc[i]));
  CHECK(bad2 == 0);
}

// Just below 2^31 elements the CUDA backend uses 32-bit index and offset math.
// A row that long in the row-tiled kernel must not step past its end: the out
// is followed by sentinels that must survive.
TEST_CASE("vectorize: a row of 2^31 - 1 elements stays inside its out" * doctest::skip(!ufunc::cuda_backend)) {
  const index_t n = (index_t(1) << 31) - 1;
  const auto un = static_cast<std::size_t>(n);
  std::vector<std::int8_t> hx(un);
  for (std::size_t i = 0; i < un; ++i) hx[i] = static_cast<std::int8_t>((i * 2654435761u) >> 24);
  const auto x = ufunc::to_device(hx);
  const auto b = ufunc::full<std::int8_t>(shape{1}, std::int8_t(3));
  const std::int8_t sentinel = 0x5A;
  auto buf = ufunc::full<std::int8_t>(shape{n + 64}, sentinel);
  auto add8 = ufunc::vectorize([] UFUNC_HD (std::int8_t a, std::int8_t c) { return static_cast<std::int8_t>(a + c); });
  add8(x, b, ufunc::out(ufunc::make_view(buf.data(), shape{n})));  // (1,) broadcast: N-d, one long row
  const auto got = buf.to_host();
  std::size_t bad = 0, first = 0;
  for (std::size_t i = 0; i < un; ++i)
    if (got[i] != static_cast<std::int8_t>(hx[i] + 3)) {
      if (!bad) first = i;
      ++bad;
    }
  INFO("first wrong element " << first);
  CHECK(bad == 0);
  std::size_t clobbered = 0;
  for (std::size_t i = un; i < got.size(); ++i) clobbered += got[i] != sentinel;
  CHECK(clobbered == 0);
}
