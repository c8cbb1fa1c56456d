// Errors: shapes that do not broadcast, outs of the wrong shape, outs that
// overlap inputs or themselves, ranks above 8, negative dims, allocations that
// cannot succeed, CUDA runtime errors. Every failing call must leave its out
// untouched (checked with a sentinel) and leave the library usable.
#include "test_support.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <new>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

using ufunc::index_t;
using ufunc::shape;

namespace {

template <class T>
void expect_all(const std::vector<T>& got, T value) {
  std::size_t bad = 0;
  for (const auto& x : got) bad += !(x == value);
  INFO(bad << " of " << got.size() << " elements changed");
  CHECK(bad == 0);
}

/// Every "N bytes (X GiB)" in an out_of_memory message: X must be N / 2^30.
void expect_consistent_sizes(const std::string& what) {
  const std::string key = " bytes (";
  std::size_t found = 0;
  for (std::size_t p = what.find(key); p != std::string::npos; p = what.find(key, p + 1)) {
    std::size_t b = p;
    while (b > 0 && std::isdigit(static_cast<unsigned char>(what[b - 1]))) --b;
    REQUIRE(b < p);
    const double bytes = std::stod(what.substr(b, p - b));
    const std::size_t g = p + key.size();
    const std::size_t e = what.find(" GiB", g);
    REQUIRE(e != std::string::npos);
    const double gib = std::stod(what.substr(g, e - g));
    INFO("'" << what.substr(b, e + 4 - b) << "'");
    CHECK(gib == doctest::Approx(bytes / double(1ull << 30)).epsilon(1e-3));
    ++found;
  }
  CHECK(found >= 1);
}

}  // namespace

TEST_CASE("errors: shapes that do not broadcast throw shape_error naming the ufunc and the shapes") {
  auto sub = ufunc::vectorize([] UFUNC_HD (float x, float y) { return x - y; }, "my_sub");
  CHECK(std::string(sub.name()) == "my_sub");
  struct row {
    std::vector<index_t> a, b;
  };
  const std::vector<row> table = {{{4, 3}, {2}}, {{2, 3}, {3, 2}}, {{0}, {2}}, {{3}, {4}}, {{2, 1}, {8, 4, 3}}, {{0, 3}, {2, 3}}};
  const float sentinel = -777.0f;
  for (const auto& c : table) {
    INFO("a " << test::dims_str(c.a) << " b " << test::dims_str(c.b));
    const auto a = ufunc::to_device(std::vector<float>(static_cast<std::size_t>(test::count_of(c.a)), 1.0f), test::shape_of(c.a));
    const auto b = ufunc::to_device(std::vector<float>(static_cast<std::size_t>(test::count_of(c.b)), 2.0f), test::shape_of(c.b));
    const std::string what = test::message_of<ufunc::shape_error>([&] { (void)sub(a, b); });
    INFO("message: " << what);
    CHECK(what.rfind("my_sub: ", 0) == 0);
    CHECK(test::contains(what, "cannot broadcast"));
    CHECK(test::contains(what, test::dims_str(c.a)));
    CHECK(test::contains(what, test::dims_str(c.b)));

    // With an out of either input's shape: nothing is written.
    for (const auto& od : {c.a, c.b}) {
      auto o = ufunc::full<float>(test::shape_of(od), sentinel);
      CHECK_THROWS_AS(sub(a, b, ufunc::out(o)), ufunc::shape_error);
      expect_all(o.to_host(), sentinel);
    }
  }
  const auto a = ufunc::zeros<float>(shape{4, 3});
  const auto b = ufunc::zeros<float>(shape{2});
  CHECK_THROWS_WITH_AS(sub(a, b), "my_sub: cannot broadcast (4,3) with (2,)", ufunc::shape_error);
  CHECK_THROWS_AS(sub(a, b), std::invalid_argument);
  // Scalars do not take part; the default name is used when none is given.
  auto sub3 = ufunc::vectorize([] UFUNC_HD (float x, float s, float y) { return x - s * y; });
  CHECK_THROWS_WITH_AS(sub3(a, 2.0f, b), doctest::Contains("cannot broadcast (4,3) with (2,)"), ufunc::shape_error);
  // std::vector inputs are 1-D arrays.
  CHECK_THROWS_AS(sub(std::vector<float>(3), std::vector<float>(4)), ufunc::shape_error);
  auto hsub = ufunc::vectorize<ufunc::target::host>([] UFUNC_HD (float x, float y) { return x - y; }, "hsub");
  CHECK_THROWS_WITH_AS(hsub(std::vector<float>(3), std::vector<float>(4)), "hsub: cannot broadcast (3,) with (4,)",
                       ufunc::shape_error);
}

TEST_CASE("errors: an out whose shape the inputs do not broadcast to") {
  auto sub = ufunc::vectorize([] UFUNC_HD (float x, float y) { return x - y; }, "my_sub");
  const auto a = ufunc::full<float>(shape{4, 3}, 1.0f);
  const auto b = ufunc::full<float>(shape{3}, 2.0f);
  const float sentinel = 31.5f;
  // NumPy refuses all of these for np.subtract(a43, b3, out=...).
  const std::vector<std::vector<index_t>> bad = {{3, 4}, {4}, {12}, {1, 3}, {4, 1}, {4, 3, 1}, {}, {0, 3}, {3}};
  for (const auto& od : bad) {
    INFO("out " << test::dims_str(od));
    auto o = ufunc::full<float>(test::shape_of(od), sentinel);
    const std::string what = test::message_of<ufunc::shape_error>([&] { (void)sub(a, b, ufunc::out(o)); });
    INFO("message: " << what);
    CHECK(what.rfind("my_sub: ", 0) == 0);
    CHECK(test::contains(what, test::dims_str(od)));
    CHECK(test::contains(what, "(4,3)"));
    expect_all(o.to_host(), sentinel);
  }
  // Two outputs of different shapes, each acceptable alone.
  auto two = ufunc::vectorize([] UFUNC_HD (float x, float y) { return cuda::std::make_pair(x - y, x + y); }, "two");
  auto o1 = ufunc::full<float>(shape{4, 3}, sentinel);
  auto o2 = ufunc::full<float>(shape{2, 4, 3}, sentinel);
  const std::string what = test::message_of<ufunc::shape_error>([&] { (void)two(a, b, ufunc::out(o1, o2)); });
  INFO("message: " << what);
  CHECK(test::contains(what, "(4,3)"));
  CHECK(test::contains(what, "(2,4,3)"));
  expect_all(o1.to_host(), sentinel);
  expect_all(o2.to_host(), sentinel);
  // The second output of the wrong shape.
  auto o3 = ufunc::full<float>(shape{3, 4}, sentinel);
  CHECK_THROWS_AS(two(a, b, ufunc::out(o1, o3)), ufunc::shape_error);
  expect_all(o1.to_host(), sentinel);
  expect_all(o3.to_host(), sentinel);
}

TEST_CASE("errors: an out that partially overlaps an input; exact in-place is allowed") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  auto neg = ufunc::vectorize([] UFUNC_HD (int x) { return -x; }, "neg");
  auto sub = ufunc::vectorize([] UFUNC_HD (int x, int y) { return x - y; }, "sub");
  const index_t n = 100;
  const auto h = test::random_vector<int>(static_cast<std::size_t>(n), seed, -1000, 1000);
  auto x = ufunc::to_device(h);
  auto other = ufunc::zeros<int>(shape{n - 1});
  const auto xv = x.view();

  SUBCASE("shifted by one element") {
    const std::string what =
        test::message_of<ufunc::shape_error>([&] { (void)neg(xv.sliced(0, 0, n - 1), ufunc::out(xv.sliced(0, 1, n))); });
    INFO("message: " << what);
    CHECK(what.rfind("neg: ", 0) == 0);
    CHECK(test::contains(what, "overlap"));
    CHECK(test::contains(what, "(99,)"));
  }
  SUBCASE("the other way round, and overlapping the second input") {
    CHECK_THROWS_AS(neg(xv.sliced(0, 1, n), ufunc::out(xv.sliced(0, 0, n - 1))), ufunc::shape_error);
    CHECK_THROWS_AS(sub(other, xv.sliced(0, 1, n), ufunc::out(xv.sliced(0, 0, n - 1))), ufunc::shape_error);
  }
  SUBCASE("same elements in another order (reversed)") {
    CHECK_THROWS_AS(neg(xv, ufunc::out(xv.sliced(0, -1, -n - 1, -1))), ufunc::shape_error);
  }
  SUBCASE("a matrix and its transpose") {
    auto m = ufunc::to_device(std::vector<int>(h.begin(), h.begin() + 36), shape{6, 6});
    CHECK_THROWS_AS(neg(m.view().transposed(), ufunc::out(m)), ufunc::shape_error);
    // The out is also an exact input, but another input is its transpose.
    CHECK_THROWS_AS(sub(m, m.view().transposed(), ufunc::out(m)), ufunc::shape_error);
    // A broadcast view of the out's first row.
    CHECK_THROWS_AS(sub(m, ufunc::make_view(m.data(), shape{6, 6}, {0, 1}), ufunc::out(m)), ufunc::shape_error);
    CHECK(m.to_host() == std::vector<int>(h.begin(), h.begin() + 36));
  }
  SUBCASE("two outputs that overlap each other") {
    auto two = ufunc::vectorize([] UFUNC_HD (int v) { return cuda::std::make_pair(v, -v); }, "two");
    auto o = ufunc::full<int>(shape{n}, 5);
    CHECK_THROWS_AS(two(other, ufunc::out(o.view().sliced(0, 0, n - 1), o.view().sliced(0, 1, n))), ufunc::shape_error);
    CHECK_THROWS_AS(two(x, ufunc::out(o, o)), ufunc::shape_error);
    expect_all(o.to_host(), 5);
  }
  // Whatever was refused, x was not written.
  CHECK(x.to_host() == h);

  SUBCASE("exact in-place use and disjoint parts of one buffer are fine") {
    CHECK_NOTHROW(neg(x, ufunc::out(x)));
    CHECK_NOTHROW(sub(x, x, ufunc::out(x)));  // x - x
    CHECK(x.to_host() == std::vector<int>(static_cast<std::size_t>(n), 0));
    auto y = ufunc::to_device(h);
    CHECK_NOTHROW(neg(y.view().sliced(0, 50, n), ufunc::out(y.view().sliced(0, 0, 50))));
    std::vector<int> want = h;
    for (std::size_t i = 0; i < 50; ++i) want[i] = -h[50 + i];
    CHECK(y.to_host() == want);
  }
}

// Disjoint but interleaved: columns, or column blocks, of one matrix. NumPy
// accepts np.negative(m[:, 1], out=m[:, 0]); the elements do not overlap, so this
// is not "partial overlap". Strides (4, 1) have gcd 1, so only the exact check
// tells m[:, 0:2] from m[:, 2:4]; m[:, 1:3] really overlaps m[:, 0:2].
TEST_CASE("errors: interleaved views of one buffer that share no element are not refused; shifted blocks are") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  auto neg = ufunc::vectorize([] UFUNC_HD (int x) { return -x; }, "neg");
  const index_t n = 300;
  const auto h = test::random_vector<int>(static_cast<std::size_t>(4 * n), seed, -1000, 1000);
  auto m = ufunc::to_device(h, shape{n, 4});
  const auto col0 = ufunc::make_view(m.data(), shape{n}, {4});
  const auto col1 = ufunc::make_view(m.data() + 1, shape{n}, {4});
  CHECK_NOTHROW(neg(col1, ufunc::out(col0)));
  std::vector<int> h1 = h;
  for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i) h1[4 * i] = -h[4 * i + 1];
  CHECK(m.to_host() == h1);
  const auto mv = m.view();
  CHECK_NOTHROW(neg(mv.sliced(1, 2, 4), ufunc::out(mv.sliced(1, 0, 2))));
  std::vector<int> want = h1;
  for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i)
    want[4 * i] = -h1[4 * i + 2], want[4 * i + 1] = -h1[4 * i + 3];
  CHECK(m.to_host() == want);
  CHECK_THROWS_AS(neg(mv.sliced(1, 0, 2), ufunc::out(mv.sliced(1, 1, 3))), ufunc::shape_error);
  // Even rows against odd rows of the same column block: disjoint.
  CHECK_NOTHROW(neg(mv.sliced(0, 1, n, 2).sliced(1, 0, 2), ufunc::out(mv.sliced(0, 0, n, 2).sliced(1, 0, 2))));
  for (std::size_t i = 0; i < static_cast<std::size_t>(n); i += 2)
    want[4 * i] = -want[4 * i + 4], want[4 * i + 1] = -want[4 * i + 5];
  CHECK(m.to_host() == want);
}

TEST_CASE("overlap check: exact against brute force on random views of one buffer") {
  // Random strided views (negative and zero strides, element sizes 1-8, also
  // mixed) of a 4 KiB buffer; the byte sets they touch decide the answer.
  std::mt19937_64 rng(test::fresh_seed());
  alignas(16) static unsigned char buf[4096];
  auto view = [&](std::size_t es) {
    ufunc::detail::operand_layout v;
    v.is_array = true;
    v.elem_size = es;
    const int rank = 1 + static_cast<int>(rng() % 3);
    std::vector<index_t> dims;
    index_t lo = 0, hi = 0;
    for (int d = 0; d < rank; ++d) {
      dims.push_back(1 + static_cast<index_t>(rng() % 5));
      const index_t st = static_cast<index_t>(rng() % 25) - 12;
      v.strides[static_cast<std::size_t>(d)] = st;
      (st < 0 ? lo : hi) += st * (dims.back() - 1);
    }
    v.shp = shape(dims);
    const index_t cap = static_cast<index_t>(sizeof(buf) / es);
    const index_t base = -lo + static_cast<index_t>(rng() % static_cast<std::uint64_t>(std::min<index_t>(cap - (hi - lo), 64)));
    v.data = buf + base * static_cast<index_t>(es);
    return v;
  };
  auto bytes = [&](const ufunc::detail::operand_layout& v) {
    std::vector<bool> hit(sizeof(buf));
    for (index_t i = 0, n = v.shp.count(); i < n; ++i) {
      index_t off = 0, rest = i;
      for (int d = v.shp.size() - 1; d >= 0; --d)
        off += (rest % v.shp[d]) * v.strides[static_cast<std::size_t>(d)], rest /= v.shp[d];
      const auto p = static_cast<const unsigned char*>(v.data) + off * static_cast<index_t>(v.elem_size);
      for (std::size_t k = 0; k < v.elem_size; ++k) hit[static_cast<std::size_t>(p - buf) + k] = true;
    }
    return hit;
  };
  const std::size_t sizes[] = {1, 2, 4, 8};
  int overlapping = 0;
  for (int iter = 0; iter < 4000; ++iter) {
    const auto a = view(sizes[rng() % 4]), b = view(sizes[rng() % 4]);
    const auto ha = bytes(a), hb = bytes(b);
    bool share = false;
    for (std::size_t k = 0; k < sizeof(buf); ++k) share |= ha[k] && hb[k];
    overlapping += share;
    INFO("iter " << iter << " a " << a.shp.str() << " es " << a.elem_size << " b " << b.shp.str() << " es "
                 << b.elem_size);
    REQUIRE(ufunc::detail::may_overlap(a, b) == share);
    REQUIRE(ufunc::detail::may_overlap(b, a) == share);
  }
  // Both answers occurred often enough for the comparison to mean something.
  CHECK(overlapping > 400);
  CHECK(overlapping < 3600);

  // Column blocks of a tall matrix (no memory behind the pointers: the check only
  // does arithmetic) are told apart within a few dozen steps, not one per row.
  ufunc::detail::operand_layout left, right;
  left.is_array = right.is_array = true;
  left.elem_size = right.elem_size = 4;
  left.shp = right.shp = shape{index_t(1) << 30, 2};
  left.strides[0] = right.strides[0] = 4;
  left.strides[1] = right.strides[1] = 1;
  left.data = buf;
  right.data = buf + 8;
  CHECK_FALSE(ufunc::detail::may_overlap(left, right, 64));
  right.data = buf + 4;  // m[:, 1:3] against m[:, 0:2]
  CHECK(ufunc::detail::may_overlap(left, right, 64));
}

TEST_CASE("errors: an out with internal overlap (zero or colliding strides)") {
  auto neg = ufunc::vectorize([] UFUNC_HD (float x) { return -x; }, "neg");
  const auto in43 = ufunc::full<float>(shape{4, 3}, 2.0f);
  auto buf = ufunc::full<float>(shape{16}, 9.0f);

  const std::string what = test::message_of<ufunc::shape_error>(
      [&] { (void)neg(in43, ufunc::out(ufunc::make_view(buf.data(), shape{4, 3}, {0, 1}))); });
  INFO("message: " << what);
  CHECK(what.rfind("neg: ", 0) == 0);
  CHECK(test::contains(what, "(4,3)"));
  CHECK_THROWS_AS(neg(in43, ufunc::out(ufunc::make_view(buf.data(), shape{4, 3}, {1, 1}))), ufunc::shape_error);
  CHECK_THROWS_AS(neg(in43, ufunc::out(ufunc::make_view(buf.data(), shape{4, 3}, {1, 0}))), ufunc::shape_error);
  CHECK_THROWS_AS(neg(2.0f, ufunc::out(ufunc::make_view(buf.data(), shape{5}, {0}))), ufunc::shape_error);
  expect_all(buf.to_host(), 9.0f);

  // A zero stride on a dimension of size 1 writes each element once: fine.
  const auto in3 = ufunc::full<float>(shape{1, 3}, 2.0f);
  CHECK_NOTHROW(neg(in3, ufunc::out(ufunc::make_view(buf.data(), shape{1, 3}, {0, 1}))));
  const auto got = buf.to_host();
  CHECK(got[0] == -2.0f);
  CHECK(got[2] == -2.0f);
  CHECK(got[3] == 9.0f);
}

TEST_CASE("errors: rank above 8 and negative dims are refused by the factories") {
  CHECK_THROWS_AS(ufunc::empty<float>({1, 1, 1, 1, 1, 1, 1, 1, 1}), ufunc::shape_error);
  CHECK_THROWS_AS(ufunc::zeros<float>({2, -1}), ufunc::shape_error);
  CHECK_THROWS_AS(ufunc::full<int>({-3}, 1), ufunc::shape_error);
  CHECK_THROWS_AS(ufunc::to_device(std::vector<float>(4), shape(std::vector<int>{2, -2})), ufunc::shape_error);
  const std::vector<index_t> nine(9, 1);
  CHECK_THROWS_AS(ufunc::make_view(static_cast<float*>(nullptr), shape(nine.begin(), nine.end())), ufunc::shape_error);
  // Rank 8 works end to end.
  auto neg = ufunc::vectorize([] UFUNC_HD (float x) { return -x; });
  auto r = neg(ufunc::full<float>({1, 2, 1, 2, 1, 2, 1, 2}, 1.5f));
  CHECK(r.ndim() == 8);
  CHECK(r.to_host() == std::vector<float>(16, -1.5f));
}

TEST_CASE("errors: an allocation that cannot succeed throws out_of_memory; the library stays usable") {
  static_assert(std::is_base_of_v<std::bad_alloc, ufunc::out_of_memory>);
  const index_t huge = index_t(1) << 46;  // 2^48 bytes of float: more than any machine here has
  const std::string bytes = std::to_string(std::uint64_t(1) << 48);

  const std::string what = test::message_of<ufunc::out_of_memory>([&] { (void)ufunc::empty<float>(shape{huge}); });
  INFO("message: " << what);
  CHECK(test::contains(what, bytes));  // also fails if nothing was thrown
  CHECK(test::contains(what, " of "));  // free (or available) of total
  expect_consistent_sizes(what);

  CHECK_THROWS_AS(ufunc::zeros<double>(shape{huge}), std::bad_alloc);
  CHECK_THROWS_AS(ufunc::full<float>(shape{huge}, 1.0f), ufunc::out_of_memory);
  CHECK_THROWS_AS((ufunc::empty<float, ufunc::target::host>(shape{huge})), ufunc::out_of_memory);

  // The result of a ufunc call: a zero-stride view of one element broadcast to 2^46.
  auto one = ufunc::full<float>(shape{1}, 1.0f);
  auto neg = ufunc::vectorize([] UFUNC_HD (float x) { return -x; });
  CHECK_THROWS_AS(neg(ufunc::make_view(one.data(), shape{huge}, {0})), ufunc::out_of_memory);

  // Afterwards everything works as before.
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const auto h = test::random_vector<float>(4097, seed);
  std::vector<float> want(h.size());
  for (std::size_t i = 0; i < h.size(); ++i) want[i] = -h[i];
  test::expect_equal(neg(ufunc::to_device(h)).to_host(), want);
  test::expect_equal(neg(ufunc::to_device(h), ufunc::stream_ref{}).to_host(), want);
  auto big = ufunc::full<float>(shape{(1 << 20) + 7}, 2.0f);
  test::expect_equal(neg(big).to_host(), std::vector<float>((1 << 20) + 7, -2.0f));
}

// The "(X GiB)" figure must match the byte count also for requests of 10^6 GiB
// and more (it was once cut to six characters, off by a power of ten).
TEST_CASE("errors: out_of_memory messages give the GiB figure of the byte count") {
  const index_t n = index_t(1) << 47;  // 2^50 bytes of double = 1048576 GiB
  const std::string what = test::message_of<ufunc::out_of_memory>([&] { (void)ufunc::empty<double>(shape{n}); });
  INFO("message: " << what);
  CHECK(test::contains(what, std::to_string(std::uint64_t(1) << 50)));
  expect_consistent_sizes(what);
}

// A shape whose element count does not fit in 64 bits cannot be allocated; it
// must not wrap around to a small (here: zero) count.
TEST_CASE("errors: an element count that overflows 64 bits is refused") {
  const index_t d = index_t(1) << 32;  // d * d = 2^64
  CHECK_THROWS(ufunc::empty<float>(shape{d, d}));
  CHECK_THROWS(ufunc::zeros<char>(shape{index_t(1) << 31, index_t(1) << 31, 4}));
  auto one = ufunc::full<float>(shape{1}, 1.0f);
  auto neg = ufunc::vectorize([] UFUNC_HD (float x) { return -x; });
  CHECK_THROWS(neg(ufunc::make_view(one.data(), shape{d, d}, {0, 0})));
  // A zero dim makes the count 0 whatever the other dims are.
  CHECK(shape{0, d, d}.count() == 0);
}

// Shapes that are each fine but whose broadcast has more than 2^63 elements: a
// shape_error, not a wrapped count (or std::terminate).
TEST_CASE("errors: a broadcast whose element count overflows throws") {
  const index_t d = index_t(1) << 40;
  CHECK_THROWS_AS((void)ufunc::broadcast_shapes({shape{d, 1}, shape{1, d}}), ufunc::shape_error);
  float one = 1.0f;
  auto add = ufunc::vectorize<ufunc::target::host>([](float a, float b) { return a + b; });
  CHECK_THROWS_AS((void)add(ufunc::make_view<ufunc::target::host>(&one, shape{d, 1}, {0, 0}),
                            ufunc::make_view<ufunc::target::host>(&one, shape{1, d}, {0, 0})),
                  ufunc::shape_error);
}

TEST_CASE("errors: cuda_error and value_error") {
  static_assert(std::is_base_of_v<std::runtime_error, ufunc::cuda_error>);
  static_assert(std::is_base_of_v<std::invalid_argument, ufunc::value_error>);
  const ufunc::cuda_error e("launch failed", 719);
  CHECK(e.code() == 719);
  CHECK(std::string(e.what()) == "launch failed");
#if defined(UFUNC_BACKEND_CUDA)
  // A failing runtime call through the library's check: typed, with the call,
  // the error's name and its code; the error is cleared and the device usable.
  int count = 0;
  REQUIRE(cudaGetDeviceCount(&count) == cudaSuccess);
  std::string what;
  int code = 0;
  try {
    UFUNC_CUDA_CHECK(cudaSetDevice(count + 5));
  } catch (const ufunc::cuda_error& err) {
    what = err.what();
    code = err.code();
  }
  INFO("message: " << what);
  CHECK(code == static_cast<int>(cudaErrorInvalidDevice));
  CHECK(test::contains(what, "cudaSetDevice"));
  CHECK(test::contains(what, "cudaErrorInvalidDevice"));
  CHECK(cudaGetLastError() == cudaSuccess);
  auto neg = ufunc::vectorize([] UFUNC_HD (float x) { return -x; });
  CHECK(neg(ufunc::full<float>(shape{3}, 1.0f)).to_host() == std::vector<float>(3, -1.0f));
#else
  CHECK_FALSE(ufunc::cuda_backend);
  CHECK(ufunc::devices().empty());
  CHECK_FALSE(ufunc::device_available());
  CHECK_NOTHROW(ufunc::synchronize());
#endif
}

TEST_CASE("call rule: every control kind is counted for 'at most once', one added after unsafe_cast too") {
  using namespace ufunc::detail;
  // A kind the enum does not have yet (the next bit after unsafe_cast): the rule
  // must refuse it twice and take it once, as it does the kinds it knows.
  constexpr auto next = static_cast<control>(static_cast<unsigned>(c_unsafe_cast) << 1);
  constexpr control_list twice{{not_control, not_control, next, c_keepdims, next}, 5};
  constexpr control_list once{{not_control, c_unsafe_cast, next, c_keepdims}, 4};
  constexpr control_list twice_cast{{not_control, c_unsafe_cast, c_unsafe_cast}, 3};
  constexpr control_list two_outs{{not_control, c_out, c_out}, 3};  // out has a message of its own
  static_assert(!twice.once_each(), "a new kind given twice");
  static_assert(once.once_each(), "each kind once");
  static_assert(!twice_cast.once_each(), "unsafe_cast twice");
  static_assert(two_outs.once_each(), "outs are counted by their own rule");
  CHECK(!twice.once_each());
  CHECK(once.once_each());
  CHECK(!control_list_of<float, ufunc::keepdims_t, ufunc::keepdims_t>().once_each());
  CHECK(control_list_of<float, float, ufunc::keepdims_t>().once_each());
}
