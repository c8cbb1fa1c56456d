// ufunc::array and ufunc::array_view: factories, transfers, ownership, and the
// view operations (transpose, permute, Python slices, explicit strides),
// checked against index math written here.
#include "test_support.hpp"

#include <algorithm>
#include <cstdint>
#include <random>
#include <type_traits>
#include <utility>
#include <vector>

using ufunc::index_t;
using ufunc::shape;

namespace {

template <class T>
void check_round_trip(std::size_t n, std::uint64_t seed) {
  INFO("n " << n << " seed " << seed);
  const auto h = test::random_vector<T>(n, seed, -100, 100);
  const auto a = ufunc::to_device(h);
  static_assert(std::is_same_v<std::remove_cv_t<decltype(a)>, ufunc::array<T>>);
  CHECK(a.shape() == shape{static_cast<index_t>(n)});
  CHECK(a.size() == static_cast<index_t>(n));
  CHECK(a.ndim() == 1);
  CHECK(a.to_host() == h);
  const auto b = ufunc::to_device(h.data(), shape{static_cast<index_t>(n)});
  CHECK(b.to_host() == h);
  const auto c = ufunc::asarray<ufunc::target::host>(h);
  CHECK(c.to_host() == h);
  for (std::size_t i = 0; i < n; ++i) REQUIRE(c.data()[i] == h[i]);  // host memory: readable directly
}

template <class T>
void check_full(const shape& s, T value) {
  INFO("shape " << s.str());
  const auto a = ufunc::full<T>(s, value);
  CHECK(a.shape() == s);
  CHECK(a.size() == s.count());
  const auto h = a.to_host();
  REQUIRE(h.size() == static_cast<std::size_t>(s.count()));
  std::size_t bad = 0;
  for (const auto& x : h) bad += !(x == value);
  CHECK(bad == 0);
  const auto ah = ufunc::full<T, ufunc::target::host>(s, value);
  std::size_t bad_host = 0;
  for (index_t i = 0; i < ah.size(); ++i) bad_host += !(ah.data()[i] == value);
  CHECK(bad_host == 0);
}

/// Python's `list(range(n))[start:stop:step]`, spelled out by hand for the table below.
struct slice_case {
  index_t start, stop, step;
  std::vector<index_t> expected;  // indices into range(7)
};

}  // namespace

TEST_CASE("array: host vector round trip through to_device / to_host") {
  for (std::size_t n : {0u, 1u, 3u, 4u, 17u, 4097u}) {
    check_round_trip<float>(n, test::fresh_seed());
    check_round_trip<double>(n, test::fresh_seed());
    check_round_trip<int>(n, test::fresh_seed());
    check_round_trip<std::int8_t>(n, test::fresh_seed());
    check_round_trip<std::uint64_t>(n, test::fresh_seed());
  }
}

// Results returned as new std::vectors (to_host, a streamed call's vectors) are
// made by detail::new_host_vector, which advises large storage to huge pages
// before making the elements: the values and sizes must be those of
// std::vector<T>(n) at every size, below and above the advice's threshold.
TEST_CASE("array: new result vectors hold n value-initialised elements at every size; to_host of a large array") {
  const std::size_t big = ufunc::detail::huge_advice_min_bytes / sizeof(float) + 3;
  for (const std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(1000), big}) {
    INFO("n = " << n);
    const auto v = ufunc::detail::new_host_vector<float>(n);
    CHECK(v.size() == n);
    CHECK(std::all_of(v.begin(), v.end(), [](float x) { return x == 0.0f; }));
    const auto d = ufunc::detail::new_host_vector<double>(n / 2);
    CHECK(d.size() == n / 2);
    CHECK(std::all_of(d.begin(), d.end(), [](double x) { return x == 0.0; }));
    const auto b = ufunc::detail::new_host_vector<bool>(n);
    CHECK(b.size() == n);
    CHECK(std::none_of(b.begin(), b.end(), [](bool x) { return x; }));
  }
  // An array past the threshold, filled with its own index pattern, back to the host.
  const auto seed = test::fresh_seed();
  CAPTURE(seed);
  std::vector<float> h(big);
  std::mt19937_64 rng(seed);
  for (auto& x : h) x = static_cast<float>(rng() % 1000003);
  const auto a = ufunc::to_device(h);
  const auto back = a.to_host();
  REQUIRE(back.size() == big);
  CHECK(back == h);
}

TEST_CASE("array: to_device with a shape keeps the row-major element order") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const auto h = test::random_vector<float>(24, seed);
  const auto a = ufunc::to_device(h, shape{2, 3, 4});
  CHECK(a.shape() == shape{2, 3, 4});
  CHECK(a.ndim() == 3);
  CHECK(a.size() == 24);
  CHECK(a.to_host() == h);

  const auto r0 = ufunc::to_device(std::vector<int>{42}, shape{});
  CHECK(r0.ndim() == 0);
  CHECK(r0.size() == 1);
  CHECK(r0.to_host() == std::vector<int>{42});

  const auto e = ufunc::to_device(std::vector<float>{}, shape{3, 0});
  CHECK(e.shape() == shape{3, 0});
  CHECK(e.size() == 0);
  CHECK(e.to_host().empty());

  const auto hh = ufunc::asarray<ufunc::target::host>(h, shape{4, 6});
  CHECK(hh.shape() == shape{4, 6});
  CHECK(hh.to_host() == h);
}

TEST_CASE("array: a vector whose size differs from the shape's count is refused") {
  const std::vector<float> h(10, 1.0f);
  CHECK_THROWS_AS(ufunc::to_device(h, shape{3, 3}), ufunc::shape_error);
  CHECK_THROWS_WITH(ufunc::to_device(h, shape{3, 3}), doctest::Contains("(3,3)"));
  CHECK_THROWS_WITH(ufunc::to_device(h, shape{3, 3}), doctest::Contains("10"));
  CHECK_THROWS_AS(ufunc::asarray<ufunc::target::host>(h, shape{11}), ufunc::shape_error);
  CHECK_THROWS_AS(ufunc::to_device(h, shape{}), ufunc::shape_error);
}

TEST_CASE("array: empty, zeros, empty_like and the default array") {
  const auto a = ufunc::empty<float>(shape{4, 3});
  CHECK(a.shape() == shape{4, 3});
  CHECK(a.size() == 12);
  CHECK(a.ndim() == 2);
  CHECK(a.data() != nullptr);
  CHECK(a.to_host().size() == 12);

  const auto r0 = ufunc::empty<double>(shape{});
  CHECK(r0.size() == 1);
  CHECK(r0.ndim() == 0);
  CHECK(r0.data() != nullptr);

  const auto e = ufunc::empty<int>(shape{0, 5});
  CHECK(e.size() == 0);
  CHECK(e.shape() == shape{0, 5});
  CHECK(e.to_host().empty());

  for (const shape& s : {shape{}, shape{0}, shape{1}, shape{3}, shape{4097}, shape{3, 5, 7}}) {
    INFO("shape " << s.str());
    const auto z = ufunc::zeros<double>(s);
    CHECK(z.shape() == s);
    CHECK(z.to_host() == std::vector<double>(static_cast<std::size_t>(s.count()), 0.0));
    const auto zi = ufunc::zeros<std::int16_t, ufunc::target::host>(s);
    CHECK(zi.to_host() == std::vector<std::int16_t>(static_cast<std::size_t>(s.count()), 0));
  }

  const auto like = ufunc::empty_like(a);
  static_assert(std::is_same_v<std::remove_cv_t<decltype(like)>, ufunc::array<float>>);
  CHECK(like.shape() == a.shape());
  CHECK(like.data() != a.data());

  auto hv = ufunc::zeros<int, ufunc::target::host>(shape{2, 5});
  const auto like_view = ufunc::empty_like(hv.view().transposed());
  static_assert(std::is_same_v<std::remove_cv_t<decltype(like_view)>, ufunc::host_array<int>>);
  CHECK(like_view.shape() == shape{5, 2});

  const ufunc::array<float> def;
  CHECK(def.shape() == shape{0});
  CHECK(def.size() == 0);
  CHECK(def.ndim() == 1);
  CHECK(def.to_host().empty());
}

TEST_CASE("array: full fills every element, tails and rank 0 included") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const float fv = test::random_vector<float>(1, seed)[0];
  const std::vector<shape> shapes = {shape{}, shape{0}, shape{1}, shape{3}, shape{4}, shape{4097},
                                     shape{(1 << 20) + 7}, shape{3, 0, 2}, shape{2, 3, 4}};
  for (const auto& s : shapes) {
    check_full<float>(s, fv);
    check_full<double>(s, -0.25);
    check_full<int>(s, -123456);
    check_full<std::int8_t>(s, std::int8_t(-7));
    check_full<bool>(s, true);
  }
}

TEST_CASE("array: the contiguous fill from a start off a 16-byte boundary, every length, neighbours untouched") {
  // full's fill (detail::fill_contiguous) compiles the vector kernel alone and
  // fills a start before a 16-byte boundary first: the library's allocations
  // are aligned, so only this reaches that part.
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const auto vals = test::random_vector<float>(1, seed);
  test::for_each_target([&](auto tg) {
    using Tg = decltype(tg);
    for (index_t off : {0, 1, 2, 3, 5})
      for (index_t n : {0, 1, 2, 3, 4, 5, 7, 8, 9, 33}) {
        INFO("offset " << off << " n " << n);
        auto a = ufunc::full<float, Tg>(shape{48}, -1.f);
        ufunc::detail::fill_contiguous<Tg, float>(a.data() + off, n, vals[0], {});
        const auto h = a.to_host();
        std::size_t bad = 0;
        for (index_t i = 0; i < 48; ++i) bad += h[static_cast<std::size_t>(i)] != (i >= off && i < off + n ? vals[0] : -1.f);
        CHECK(bad == 0);
      }
    auto d = ufunc::full<double, Tg>(shape{20}, 0.5);
    ufunc::detail::fill_contiguous<Tg, double>(d.data() + 1, 17, -3.0, {});
    const auto hd = d.to_host();
    for (index_t i = 0; i < 20; ++i) CHECK(hd[static_cast<std::size_t>(i)] == (i >= 1 && i < 18 ? -3.0 : 0.5));
  });
}

TEST_CASE("array: copy is deep; moves transfer ownership") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const auto h = test::random_vector<int>(1000, seed, -1000, 1000);
  auto a = ufunc::to_device(h, shape{10, 100});
  const auto c = a.copy();
  CHECK(c.shape() == a.shape());
  CHECK(c.data() != a.data());

  // Overwrite the original in place; the copy keeps the old values.
  auto neg = ufunc::vectorize([] UFUNC_HD (int x) { return -x; });
  neg(a, ufunc::out(a));
  std::vector<int> minus(h.size());
  for (std::size_t i = 0; i < h.size(); ++i) minus[i] = -h[i];
  CHECK(a.to_host() == minus);
  CHECK(c.to_host() == h);

  // Move construction.
  const int* p = a.data();
  auto b = std::move(a);
  CHECK(b.data() == p);
  CHECK(b.shape() == shape{10, 100});
  CHECK(b.to_host() == minus);
  CHECK(a.data() == nullptr);  // NOLINT(bugprone-use-after-move): moved-from state is specified
  CHECK(a.size() == 0);        // NOLINT(bugprone-use-after-move)
  CHECK(a.shape() == shape{0});
  CHECK(a.to_host().empty());
  CHECK(a.copy().size() == 0);

  // Move assignment releases the old buffer and takes the new one.
  auto d = ufunc::full<int>(shape{3}, 5);
  d = std::move(b);
  CHECK(d.data() == p);
  CHECK(d.shape() == shape{10, 100});
  CHECK(d.to_host() == minus);
  CHECK(b.data() == nullptr);  // NOLINT(bugprone-use-after-move)
  d = std::move(d);            // self-move is a no-op
  CHECK(d.data() == p);
  CHECK(d.to_host() == minus);

  // Copies of host arrays too.
  auto hh = ufunc::asarray<ufunc::target::host>(h);
  const auto hc = hh.copy();
  hh.data()[0] = h[0] + 1;
  CHECK(hc.to_host() == h);
}

TEST_CASE("array_view: the view of an array is row-major over its memory") {
  auto a = ufunc::zeros<float>(shape{2, 3, 4});
  const auto v = a.view();
  static_assert(std::is_same_v<std::remove_cv_t<decltype(v)>, ufunc::array_view<float>>);
  CHECK(v.data() == a.data());
  CHECK(v.shape() == a.shape());
  CHECK(v.strides() == std::vector<index_t>{12, 4, 1});
  CHECK(v.size() == 24);
  CHECK(v.ndim() == 3);
  CHECK(v.is_contiguous());

  const auto& ca = a;
  const auto cv = ca.view();
  static_assert(std::is_same_v<std::remove_cv_t<decltype(cv)>, ufunc::array_view<const float>>);
  CHECK(cv.data() == a.data());

  // Implicit conversions: array -> view, view -> view of const.
  ufunc::array_view<float> v2 = a;
  ufunc::array_view<const float> v3 = v2;
  CHECK(v3.data() == a.data());
  CHECK(v3.shape() == a.shape());
  CHECK(v3.strides() == v2.strides());

  const auto mv = ufunc::make_view(a.data() + 4, shape{3, 4});
  CHECK(mv.data() == a.data() + 4);
  CHECK(mv.strides() == std::vector<index_t>{4, 1});
  const auto sv = ufunc::make_view(a.data(), shape{4, 2}, {1, 8});
  CHECK(sv.strides() == std::vector<index_t>{1, 8});
  CHECK(sv.stride(1) == 8);
  CHECK_FALSE(sv.is_contiguous());
}

TEST_CASE("array_view: element access on host memory, transposed and permuted") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const std::vector<index_t> dims{2, 3, 4};
  const auto h = test::random_vector<int>(24, seed, -1000, 1000);
  auto a = ufunc::asarray<ufunc::target::host>(h, shape{2, 3, 4});
  const auto v = a.view();
  for (index_t i = 0; i < 2; ++i)
    for (index_t j = 0; j < 3; ++j)
      for (index_t k = 0; k < 4; ++k) REQUIRE(v(i, j, k) == h[static_cast<std::size_t>(i * 12 + j * 4 + k)]);
  for (index_t i = 0; i < 24; ++i) REQUIRE(v[i] == h[static_cast<std::size_t>(i)]);

  // Writes through a view land in the array.
  v(1, 2, 3) = 777;
  CHECK(a.data()[23] == 777);
  v(1, 2, 3) = h[23];

  const auto t = v.transposed();
  CHECK(t.shape() == shape{4, 3, 2});
  CHECK(t.data() == v.data());
  CHECK_FALSE(t.is_contiguous());
  for (index_t i = 0; i < 2; ++i)
    for (index_t j = 0; j < 3; ++j)
      for (index_t k = 0; k < 4; ++k) REQUIRE(t(k, j, i) == v(i, j, k));
  // operator[] walks the transposed view in its own row-major order.
  for (index_t lin = 0; lin < 24; ++lin) {
    const auto idx = test::unravel(lin, {4, 3, 2});
    REQUIRE(t[lin] == h[static_cast<std::size_t>(idx[2] * 12 + idx[1] * 4 + idx[0])]);
  }
  CHECK(t.transposed().strides() == v.strides());

  // Result axis k is source axis axes[k].
  const auto p = v.permuted({1, 2, 0});
  CHECK(p.shape() == shape{3, 4, 2});
  for (index_t i = 0; i < 2; ++i)
    for (index_t j = 0; j < 3; ++j)
      for (index_t k = 0; k < 4; ++k) REQUIRE(p(j, k, i) == v(i, j, k));
  CHECK(v.permuted({0, 1, 2}).strides() == v.strides());

  // Rank 0 and rank 1 transpose are the identity.
  auto s0 = ufunc::full<int, ufunc::target::host>(shape{}, 9);
  CHECK(s0.view().transposed().shape() == shape{});
  CHECK(s0.view()[0] == 9);
  CHECK(s0.view()() == 9);
  auto s1 = ufunc::asarray<ufunc::target::host>(std::vector<int>{1, 2, 3});
  CHECK(s1.view().transposed().strides() == std::vector<index_t>{1});
}

TEST_CASE("array_view: permuted refuses anything but a permutation") {
  auto a = ufunc::zeros<float, ufunc::target::host>(shape{2, 3});
  const auto v = a.view();
  CHECK_THROWS_AS(v.permuted({0, 0}), ufunc::shape_error);
  CHECK_THROWS_AS(v.permuted({0}), ufunc::shape_error);
  CHECK_THROWS_AS(v.permuted({0, 2}), ufunc::shape_error);
  CHECK_THROWS_AS(v.permuted({-1, 0}), ufunc::shape_error);
  CHECK_THROWS_AS(v.permuted({0, 1, 2}), ufunc::shape_error);
  CHECK_THROWS_WITH(v.permuted({1, 1}), doctest::Contains("(2,3)"));
}

TEST_CASE("array_view: sliced follows Python slice semantics") {
  const std::vector<slice_case> table = {
      {1, 6, 2, {1, 3, 5}},
      {0, 7, 1, {0, 1, 2, 3, 4, 5, 6}},
      {-3, 7, 1, {4, 5, 6}},
      {2, -2, 1, {2, 3, 4}},
      {-100, 100, 3, {0, 3, 6}},
      {3, 3, 1, {}},
      {5, 2, 1, {}},
      {2, 100, 1, {2, 3, 4, 5, 6}},
      {-8, 3, 1, {0, 1, 2}},
      {0, 7, 10, {0}},
      {6, 7, 5, {6}},
      {7, 10, 1, {}},
      {6, -8, -1, {6, 5, 4, 3, 2, 1, 0}},
      {5, 1, -2, {5, 3}},
      {-2, -8, -3, {5, 2}},
      {10, -10, -1, {6, 5, 4, 3, 2, 1, 0}},
      {0, 5, -1, {}},
      {-1, -2, -1, {6}},
      {100, 0, -3, {6, 3}},
      {3, 3, -1, {}},
      {-1, -100, -4, {6, 2}},
  };
  std::vector<int> h(7);
  for (int i = 0; i < 7; ++i) h[static_cast<std::size_t>(i)] = 10 * i + 1;
  auto a = ufunc::asarray<ufunc::target::host>(h);
  for (const auto& c : table) {
    INFO("[" << c.start << ":" << c.stop << ":" << c.step << "]");
    const auto s = a.view().sliced(0, c.start, c.stop, c.step);
    REQUIRE(s.shape() == shape{static_cast<index_t>(c.expected.size())});
    for (std::size_t k = 0; k < c.expected.size(); ++k)
      CHECK(s[static_cast<index_t>(k)] == h[static_cast<std::size_t>(c.expected[k])]);
    if (c.step < 0 && c.expected.size() > 1) CHECK(s.stride(0) < 0);
  }
  // The default step is 1.
  CHECK(a.view().sliced(0, 2, 4).shape() == shape{2});
  CHECK(a.view().sliced(0, 2, 4)[0] == h[2]);
}

namespace {
/// Python's `range(n)[start:stop:step]` as a list of indices, computed without
/// overflow in 128 bits by the language reference's rule: a negative bound counts
/// from the end; bounds clamp to [0, n] (step > 0) or [-1, n - 1] (step < 0); then
/// walk from start towards stop.
std::vector<index_t> python_slice(index_t n, index_t start, index_t stop, index_t step) {
  using wide = __int128;
  auto bound = [&](wide v) {
    if (v < 0) v += n;
    const wide lo = step < 0 ? -1 : 0, hi = step < 0 ? n - 1 : n;
    return v < lo ? lo : (v > hi ? hi : v);
  };
  std::vector<index_t> idx;
  for (wide i = bound(start), e = bound(stop); step > 0 ? i < e : i > e; i += step)
    idx.push_back(static_cast<index_t>(i));
  return idx;
}
}  // namespace

TEST_CASE("array_view: sliced with extreme start, stop and step agrees with Python's slices") {
  // Before the fix: UBSan reported signed overflow, [0:5:INT64_MAX] had length 0 and
  // negative steps on short dims threw "negative dimension -1".
  const index_t mx = INT64_MAX, mn = INT64_MIN;
  const std::vector<index_t> bounds = {mn, mn + 1, mn + 2, -(index_t(1) << 62), -9, -7, -6, -2, -1, 0, 1,
                                       2, 5, 6, 7, 12, index_t(1) << 62, mx - 2, mx - 1, mx};
  const std::vector<index_t> steps = {mn, mn + 1, -(index_t(1) << 62), -7, -3, -2, -1,
                                      1, 2, 3, 7, index_t(1) << 62, mx - 1, mx};
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  for (index_t n : {0, 1, 2, 3, 6}) {
    const auto h = test::random_vector<int>(static_cast<std::size_t>(3 * n), seed + static_cast<std::uint64_t>(n), -99, 99);
    const auto a = ufunc::make_view<ufunc::target::host>(h.data(), shape{3, n});
    for (index_t start : bounds)
      for (index_t stop : bounds)
        for (index_t step : steps) {
          const auto want = python_slice(n, start, stop, step);
          const auto s = a.sliced(1, start, stop, step);
          INFO("n " << n << " [" << start << ":" << stop << ":" << step << "]");
          REQUIRE(s.shape() == shape{3, static_cast<index_t>(want.size())});
          for (index_t r = 0; r < 3; ++r)
            for (std::size_t k = 0; k < want.size(); ++k)
              REQUIRE(s(r, static_cast<index_t>(k)) == h[static_cast<std::size_t>(r * n + want[k])]);
          // Slicing the slice again stays exact (strides of the first slice are reused).
          const auto t = s.sliced(1, 0, mx, 2);
          REQUIRE(t.shape()[1] == (static_cast<index_t>(want.size()) + 1) / 2);
          for (index_t k = 0; k < t.shape()[1]; ++k)
            REQUIRE(t(0, k) == h[static_cast<std::size_t>(want[static_cast<std::size_t>(2 * k)])]);
        }
  }
  // Python: list(range(5))[0:5:2**63-1] == [0].
  std::vector<int> five = {10, 11, 12, 13, 14};
  const auto f = ufunc::make_view<ufunc::target::host>(five.data(), shape{5});
  REQUIRE(f.sliced(0, 0, 5, mx).shape() == shape{1});
  CHECK(f.sliced(0, 0, 5, mx)[0] == 10);
  CHECK(f.sliced(0, mx, mn, mn).shape() == shape{1});
  CHECK(f.sliced(0, mx, mn, mn)[0] == 14);
}

TEST_CASE("array_view: strides whose offsets overflow 64 bits are refused when the view is made") {
  std::vector<float> h(4);
  const index_t mx = INT64_MAX;
  CHECK_THROWS_AS(ufunc::make_view<ufunc::target::host>(h.data(), shape{3}, {mx / 2 + 1}), ufunc::shape_error);
  CHECK_THROWS_AS(ufunc::make_view<ufunc::target::host>(h.data(), shape{2}, {INT64_MIN}), ufunc::shape_error);
  CHECK_THROWS_AS(ufunc::make_view<ufunc::target::host>(h.data(), shape{2, 2}, {mx / 2 + 1, -(mx / 2 + 1)}), ufunc::shape_error);
  CHECK_THROWS_WITH(ufunc::make_view<ufunc::target::host>(h.data(), shape{2, 3}, {1, mx}), doctest::Contains("(2,3)"));
  // The largest reach that fits, and any stride on extents of 0 or 1, are views.
  CHECK_NOTHROW(ufunc::make_view<ufunc::target::host>(h.data(), shape{2, 2}, {mx / 2, -(mx / 2)}));
  CHECK_NOTHROW(ufunc::make_view<ufunc::target::host>(h.data(), shape{1, 2}, {INT64_MIN, 1}));
  CHECK_NOTHROW(ufunc::make_view<ufunc::target::host>(h.data(), shape{0, 2}, {mx, mx}));
}

TEST_CASE("array_view: sliced on several axes of a 2-D view, negative axis") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const auto h = test::random_vector<int>(20, seed, -99, 99);
  auto a = ufunc::asarray<ufunc::target::host>(h, shape{4, 5});
  // rows [::2] -> 0, 2; columns [4:0:-2] -> 4, 2 (axis -1 is the last axis)
  const auto s = a.view().sliced(0, 0, 4, 2).sliced(-1, 4, 0, -2);
  REQUIRE(s.shape() == shape{2, 2});
  const index_t rows[] = {0, 2}, cols[] = {4, 2};
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) CHECK(s(i, j) == h[static_cast<std::size_t>(rows[i] * 5 + cols[j])]);
  // An empty slice keeps the other dims.
  CHECK(a.view().sliced(1, 3, 3).shape() == shape{4, 0});
}

TEST_CASE("array_view: invalid slices and stride lists throw shape_error") {
  auto a = ufunc::zeros<float, ufunc::target::host>(shape{4, 5});
  CHECK_THROWS_AS(a.view().sliced(2, 0, 1), ufunc::shape_error);
  CHECK_THROWS_AS(a.view().sliced(-3, 0, 1), ufunc::shape_error);
  CHECK_THROWS_AS(a.view().sliced(0, 0, 4, 0), ufunc::shape_error);
  CHECK_THROWS_WITH(a.view().sliced(5, 0, 1), doctest::Contains("(4,5)"));
  CHECK_THROWS_AS(ufunc::make_view(a.data(), shape{4, 5}, {5}), ufunc::shape_error);
  CHECK_THROWS_AS(ufunc::make_view(a.data(), shape{20}, {1, 1}), ufunc::shape_error);
  CHECK_THROWS_AS(ufunc::make_view(a.data(), shape{}, {1}), ufunc::shape_error);
}

TEST_CASE("array_view: a null pointer with a non-empty shape is refused when the view is made") {
  float* null = nullptr;
  CHECK_THROWS_AS(ufunc::make_view(null, ufunc::shape{3}), ufunc::value_error);
  CHECK_THROWS_AS(ufunc::make_view<ufunc::target::host>(null, ufunc::shape{2, 2}, {2, 1}), ufunc::value_error);
  CHECK_NOTHROW(ufunc::make_view(null, ufunc::shape{0, 3}));  // empty: nothing to point at
  const auto e = ufunc::host_array<float>(ufunc::shape{0});
  CHECK(e.view().size() == 0);
}

#if defined(UFUNC_BACKEND_CUDA)
TEST_CASE("array: device memory comes from the library's own pool; the device's default pool is untouched") {
  // The default pool's release threshold is process-wide state that other
  // cudaMallocAsync users set (PyTorch's async allocator): ufunc must not change it.
  int dev = 0;
  REQUIRE(cudaGetDevice(&dev) == cudaSuccess);
  cudaMemPool_t def;
  REQUIRE(cudaDeviceGetDefaultMemPool(&def, dev) == cudaSuccess);
  std::uint64_t before = 0, mine = 12345 * 1024;
  REQUIRE(cudaMemPoolGetAttribute(def, cudaMemPoolAttrReleaseThreshold, &before) == cudaSuccess);
  REQUIRE(cudaMemPoolSetAttribute(def, cudaMemPoolAttrReleaseThreshold, &mine) == cudaSuccess);
  std::uint64_t used_before = 0;
  REQUIRE(cudaMemPoolGetAttribute(def, cudaMemPoolAttrUsedMemCurrent, &used_before) == cudaSuccess);
  {
    auto a = ufunc::full<float>(shape{1 << 20}, 2.0f);
    const float s = ufunc::sum(a);
    CHECK(s == doctest::Approx(2.0 * (1 << 20)));
    // The array is not in the default pool: its in-use bytes did not grow.
    std::uint64_t used = 0;
    REQUIRE(cudaMemPoolGetAttribute(def, cudaMemPoolAttrUsedMemCurrent, &used) == cudaSuccess);
    CHECK(used == used_before);
  }
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  std::uint64_t after = 0;
  REQUIRE(cudaMemPoolGetAttribute(def, cudaMemPoolAttrReleaseThreshold, &after) == cudaSuccess);
  CHECK(after == mine);
  REQUIRE(cudaMemPoolSetAttribute(def, cudaMemPoolAttrReleaseThreshold, &before) == cudaSuccess);
}
#endif
