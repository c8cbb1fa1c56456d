// Exceptions from user functions (issue 36): on the host target a function that
// throws (at the first, a middle or the last element, below and above the
// parallel threshold) reaches the caller as the exception the serially first
// throwing element raised (type and message), and no allocation outlives the
// call. Elementwise calls write `out` in place (prefilled with random bit
// patterns): each element holds its old bits or its result, and with the
// function's result type every element before the throwing one holds its
// result. Reductions into out and sharded calls leave `out` bit for bit as it
// was. Covered: eager calls with out (flat and strided, in place, two
// outputs), calls returning new arrays and std::vectors, lazy expressions
// (ufunc::evaluate with out, an eager call on an expression), reductions into
// out (a throwing map, a throwing op, f.reduce), and sharded calls on host
// shards with a sharded out. Elementwise calls allocate nothing with out. Every successful call is checked against a serial reference on
// the same fresh random data. Host target only (device code cannot throw), so
// this file is plain C++ in every build; run at OMP_NUM_THREADS=1, 2 and 16.
#include "test_support.hpp"

#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

using ufunc::index_t;
namespace alloc = ufunc::detail::testing;

namespace {

using H = ufunc::target::host;

/// What the functions below throw: the index of the element that raised it
/// (marked elements hold -(index + 1); ordinary data is in [0, 10)).
struct bad_element : std::runtime_error {
  long long index;
  explicit bad_element(long long i) : std::runtime_error("bad element " + std::to_string(i)), index(i) {}
};

inline float check_mark(float x) {
  if (x < 0) throw bad_element(static_cast<long long>(-x) - 1);
  return x;
}

/// The function under test and its serial reference.
inline float ref_unary(float x) { return x * 3.0f + 1.0f; }
struct unary_thrower {
  float operator()(float x) const { return ref_unary(check_mark(x)); }
};

/// Fresh data in [0, 10) with the elements at `marks` (and, with `from`, every
/// element from marks[0] on) marked to throw.
std::vector<float> marked_data(std::size_t n, std::uint64_t seed, const std::vector<std::size_t>& marks,
                               bool from = false) {
  auto v = test::random_vector<float>(n, seed, 0.0, 10.0);
  for (std::size_t k : marks) v[k] = -static_cast<float>(k + 1);  // exact below 2^24
  if (from && !marks.empty())
    for (std::size_t k = marks[0]; k < n; ++k) v[k] = -static_cast<float>(k + 1);
  return v;
}

/// Random bit patterns (NaNs and infinities among them), compared bit for bit.
template <class T>
std::vector<T> sentinel(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<unsigned char> bytes(n * sizeof(T));
  for (auto& b : bytes) b = static_cast<unsigned char>(rng());
  std::vector<T> v(n);
  if (n) std::memcpy(v.data(), bytes.data(), bytes.size());
  return v;
}
template <class T>
bool same_bits(const T* p, const std::vector<T>& want) {
  return want.empty() || std::memcmp(p, want.data(), want.size() * sizeof(T)) == 0;
}

/// The elementwise contract after a throw at element k: element i of `p` (at
/// p[i * stride]; the gaps between stay as they were in `old`) holds its old bits
/// or `result[i]` (marked elements, which have no result, only their old bits),
/// and with `prefix` every element before k holds its result.
template <class T>
bool partly_written(const T* p, const std::vector<T>& old, const std::vector<T>& result,
                    const std::vector<bool>& marked, std::size_t k, bool prefix, std::size_t stride = 1) {
  for (std::size_t j = 0; j < old.size(); ++j) {
    const bool same_old = std::memcmp(p + j, &old[j], sizeof(T)) == 0;
    if (j % stride != 0) {
      if (!same_old) return false;
      continue;
    }
    const std::size_t i = j / stride;
    const bool same_result = !marked[i] && std::memcmp(p + j, &result[i], sizeof(T)) == 0;
    if (prefix && i < k ? !same_result : !(same_old || same_result)) return false;
  }
  return true;
}
std::vector<bool> marks_of(const std::vector<float>& x) {
  std::vector<bool> m(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) m[i] = x[i] < 0;
  return m;
}
template <class T = float>
std::vector<T> ref_of(const std::vector<float>& x) {
  std::vector<T> r(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) r[i] = x[i] < 0 ? T(0) : static_cast<T>(ref_unary(x[i]));
  return r;
}

/// Runs `call`, which must throw bad_element for element `k`; checks that no
/// allocation outlives it.
template <class Call>
void expect_bad_element(long long k, Call&& call) {
  const long long live0 = alloc::live_allocations();
  std::string what;
  long long index = -1;
  try {
    call();
  } catch (const bad_element& e) {
    what = e.what();
    index = e.index;
  }
  CHECK(index == k);
  CHECK(what == "bad element " + std::to_string(k));
  CHECK(alloc::live_allocations() == live0);
}

/// The sizes: below one OpenMP work item, and many items.
const std::vector<std::size_t>& sizes() {
  static const std::vector<std::size_t> s{10, 1000000};
  return s;
}
std::vector<std::size_t> positions(std::size_t n) { return {0, n / 2, n - 1}; }

}  // namespace

TEST_CASE("throwing function: eager calls with out write it partly: old bits or results, results before the throw") {
  const auto f = ufunc::vectorize<H>(unary_thrower{}, "thrower");
  for (std::size_t n : sizes()) {
    for (std::size_t k : positions(n)) {
      for (bool from : {false, true}) {
        const auto seed = test::fresh_seed();
        INFO("n " << n << " throwing at " << k << (from ? " and after" : " only") << " seed " << seed);
        const auto hx = marked_data(n, seed, {k}, from);
        const auto marked = marks_of(hx);
        const auto want = ref_of(hx);
        const auto x = ufunc::asarray<H>(hx, ufunc::shape{static_cast<index_t>(n)});
        // Flat out.
        const auto s0 = sentinel<float>(n, seed + 1);
        auto y = ufunc::asarray<H>(s0, ufunc::shape{static_cast<index_t>(n)});
        expect_bad_element(static_cast<long long>(k), [&] { f(x, ufunc::out(y)); });
        CHECK(partly_written(y.data(), s0, want, marked, k, true));
        // A strided out (every other element of a buffer): the N-d path; the gaps stay.
        const auto s1 = sentinel<float>(2 * n, seed + 2);
        auto buf = ufunc::asarray<H>(s1, ufunc::shape{static_cast<index_t>(2 * n)});
        auto strided = ufunc::make_view<H>(buf.data(), ufunc::shape{static_cast<index_t>(n)}, {2});
        expect_bad_element(static_cast<long long>(k), [&] { f(x, ufunc::out(strided)); });
        CHECK(partly_written(buf.data(), s1, want, marked, k, true, 2));
        // In place: out is the input.
        auto z = ufunc::asarray<H>(hx, ufunc::shape{static_cast<index_t>(n)});
        expect_bad_element(static_cast<long long>(k), [&] { f(z, ufunc::out(z)); });
        CHECK(partly_written(z.data(), hx, want, marked, k, true));
        // Into another element type (same_kind: float into double): old bits or results.
        const auto s2 = sentinel<double>(n, seed + 3);
        auto w = ufunc::asarray<H>(s2, ufunc::shape{static_cast<index_t>(n)});
        expect_bad_element(static_cast<long long>(k), [&] { f(x, ufunc::out(w)); });
        CHECK(partly_written(w.data(), s2, ref_of<double>(hx), marked, k, false));
      }
    }
    // Without a marked element the same calls write the reference.
    const auto seed = test::fresh_seed();
    INFO("n " << n << " no throw, seed " << seed);
    const auto hx = marked_data(n, seed, {});
    const auto x = ufunc::asarray<H>(hx, ufunc::shape{static_cast<index_t>(n)});
    auto y = ufunc::asarray<H>(sentinel<float>(n, seed + 1), ufunc::shape{static_cast<index_t>(n)});
    const long long live0 = alloc::live_allocations();
    f(x, ufunc::out(y));
    CHECK(alloc::live_allocations() == live0);
    std::vector<float> want(n);
    for (std::size_t i = 0; i < n; ++i) want[i] = ref_unary(hx[i]);
    CHECK(same_bits(y.data(), want));
    auto buf = ufunc::asarray<H>(sentinel<float>(2 * n, seed + 2), ufunc::shape{static_cast<index_t>(2 * n)});
    std::vector<float> wbuf(buf.data(), buf.data() + 2 * n);
    for (std::size_t i = 0; i < n; ++i) wbuf[2 * i] = want[i];
    f(x, ufunc::out(ufunc::make_view<H>(buf.data(), ufunc::shape{static_cast<index_t>(n)}, {2})));
    CHECK(same_bits(buf.data(), wbuf));
    auto z = ufunc::asarray<H>(hx, ufunc::shape{static_cast<index_t>(n)});
    f(z, ufunc::out(z));
    CHECK(same_bits(z.data(), want));
  }
}

TEST_CASE("throwing function: two outputs and a broadcast scalar, both outs partly written") {
  const auto f = ufunc::vectorize<H>(
      [](float x, float c) { return cuda::std::make_tuple(check_mark(x) * c, static_cast<int>(check_mark(x))); },
      "two_outputs");
  for (std::size_t n : sizes()) {
    for (std::size_t k : positions(n)) {
      const auto seed = test::fresh_seed();
      INFO("n " << n << " throwing at " << k << " seed " << seed);
      const auto hx = marked_data(n, seed, {k});
      const auto marked = marks_of(hx);
      std::vector<float> wa(n);
      std::vector<int> wb(n);
      for (std::size_t i = 0; i < n; ++i) wa[i] = hx[i] * 1.5f, wb[i] = static_cast<int>(hx[i]);
      const auto x = ufunc::asarray<H>(hx, ufunc::shape{static_cast<index_t>(n)});
      const auto sa = sentinel<float>(n, seed + 1);
      const auto sb = sentinel<int>(n, seed + 2);
      auto a = ufunc::asarray<H>(sa, ufunc::shape{static_cast<index_t>(n)});
      auto b = ufunc::asarray<H>(sb, ufunc::shape{static_cast<index_t>(n)});
      expect_bad_element(static_cast<long long>(k), [&] { f(x, 1.5f, ufunc::out(a, b)); });
      CHECK(partly_written(a.data(), sa, wa, marked, k, true));
      CHECK(partly_written(b.data(), sb, wb, marked, k, true));
    }
    const auto seed = test::fresh_seed();
    const auto hx = marked_data(n, seed, {});
    const auto x = ufunc::asarray<H>(hx, ufunc::shape{static_cast<index_t>(n)});
    auto a = ufunc::asarray<H>(sentinel<float>(n, seed + 1), ufunc::shape{static_cast<index_t>(n)});
    auto b = ufunc::asarray<H>(sentinel<int>(n, seed + 2), ufunc::shape{static_cast<index_t>(n)});
    f(x, 1.5f, ufunc::out(a, b));
    bool ok = true;
    for (std::size_t i = 0; i < n; ++i) ok = ok && a.data()[i] == hx[i] * 1.5f && b.data()[i] == static_cast<int>(hx[i]);
    CHECK(ok);
  }
}

TEST_CASE("throwing function: calls returning new arrays free them") {
  const auto f = ufunc::vectorize<H>(unary_thrower{}, "thrower");
  for (std::size_t n : sizes()) {
    for (std::size_t k : positions(n)) {
      const auto seed = test::fresh_seed();
      INFO("n " << n << " throwing at " << k << " seed " << seed);
      const auto hx = marked_data(n, seed, {k});
      const auto x = ufunc::asarray<H>(hx, ufunc::shape{static_cast<index_t>(n)});
      expect_bad_element(static_cast<long long>(k), [&] { (void)f(x); });
      expect_bad_element(static_cast<long long>(k), [&] { (void)f(hx); });  // std::vector in, std::vector out
      CHECK(same_bits(x.data(), hx));
    }
  }
}

TEST_CASE("throwing function: lazy expressions evaluated into out write it partly") {
  const auto f = ufunc::vectorize<H>(unary_thrower{}, "thrower");
  const auto g = ufunc::vectorize<H>([](float a, float b) { return a - b; }, "minus");
  for (std::size_t n : sizes()) {
    for (std::size_t k : positions(n)) {
      const auto seed = test::fresh_seed();
      INFO("n " << n << " throwing at " << k << " seed " << seed);
      const auto hx = marked_data(n, seed, {k});
      const auto marked = marks_of(hx);
      const auto hy = test::random_vector<float>(n, seed + 1, 0.0, 10.0);
      std::vector<float> we(n), wg(n);
      for (std::size_t i = 0; i < n; ++i) we[i] = ref_unary(hx[i]) * 2.0f + hy[i], wg[i] = ref_unary(hx[i]) - hy[i];
      const auto x = ufunc::asarray<H>(hx, ufunc::shape{static_cast<index_t>(n)});
      const auto y = ufunc::asarray<H>(hy, ufunc::shape{static_cast<index_t>(n)});
      const auto s0 = sentinel<float>(n, seed + 2);
      auto z = ufunc::asarray<H>(s0, ufunc::shape{static_cast<index_t>(n)});
      expect_bad_element(static_cast<long long>(k), [&] { ufunc::evaluate(f.lazy(x) * 2.0f + y, ufunc::out(z)); });
      CHECK(partly_written(z.data(), s0, we, marked, k, true));
      auto z2 = ufunc::asarray<H>(s0, ufunc::shape{static_cast<index_t>(n)});
      expect_bad_element(static_cast<long long>(k), [&] { g(f.lazy(x), y, ufunc::out(z2)); });  // an eager call's input
      CHECK(partly_written(z2.data(), s0, wg, marked, k, true));
      expect_bad_element(static_cast<long long>(k), [&] { (void)ufunc::evaluate(f.lazy(x) * 2.0f + y); });
      // Without the mark: the reference.
      auto hx2 = hx;
      hx2[k] = 1.25f;
      const auto x2 = ufunc::asarray<H>(hx2, ufunc::shape{static_cast<index_t>(n)});
      ufunc::evaluate(f.lazy(x2) * 2.0f + y, ufunc::out(z));
      bool ok = true;
      for (std::size_t i = 0; i < n; ++i) ok = ok && z.data()[i] == ref_unary(hx2[i]) * 2.0f + hy[i];
      CHECK(ok);
    }
  }
}

TEST_CASE("throwing map or op: reductions into out leave it untouched") {
  const auto map = [](float x) { return check_mark(x) * 0.5f; };
  const auto op = [](float a, float b) {
    if (a < 0 || b < 0) throw bad_element(-1);
    return a + b;
  };
  // Shapes: small, and 1000 x 1000 (above the threshold); reduced over the
  // rows (rows_like), the columns (outputs advancing together) and everything.
  for (std::size_t n : sizes()) {
    const index_t rows = n == 10 ? 2 : 1000, cols = static_cast<index_t>(n) / rows;
    const ufunc::shape s{rows, cols};
    for (std::size_t k : positions(n)) {
      const auto seed = test::fresh_seed();
      INFO("shape " << s.str() << " throwing at " << k << " seed " << seed);
      const auto hx = marked_data(n, seed, {k});
      const auto x = ufunc::asarray<H>(hx, s);
      for (int ax : {0, 1}) {
        INFO("axis " << ax);
        const index_t m = ax == 0 ? cols : rows;
        const auto s0 = sentinel<float>(static_cast<std::size_t>(m), seed + 1 + ax);
        auto r = ufunc::asarray<H>(s0, ufunc::shape{m});
        expect_bad_element(static_cast<long long>(k),
                           [&] { ufunc::map_reduce(map, ufunc::plus{})(x, ufunc::axis(ax), ufunc::out(r)); });
        CHECK(same_bits(r.data(), s0));
        // A throwing op on the marked data (the map leaves the mark negative).
        CHECK_THROWS_AS(ufunc::map_reduce([](float v) { return v; }, op)(x, ufunc::axis(ax), ufunc::out(r)), bad_element);
        CHECK(same_bits(r.data(), s0));
        CHECK_THROWS_AS(ufunc::reduce(op)(x, ufunc::axis(ax), ufunc::out(r)), bad_element);
        CHECK(same_bits(r.data(), s0));
        const auto fop = ufunc::vectorize<H>(op, "op");
        CHECK_THROWS_AS(fop.reduce(x, ufunc::axis(ax), ufunc::out(r)), bad_element);
        CHECK(same_bits(r.data(), s0));
        // No leak: the same with a new array.
        expect_bad_element(static_cast<long long>(k), [&] { (void)ufunc::map_reduce(map, ufunc::plus{})(x, ufunc::axis(ax)); });
      }
      const auto s1 = sentinel<float>(1, seed + 5);
      auto one = ufunc::asarray<H>(s1, ufunc::shape{1});
      expect_bad_element(static_cast<long long>(k), [&] { ufunc::map_reduce(map, ufunc::plus{})(x, ufunc::out(one)); });
      CHECK(same_bits(one.data(), s1));
    }
    // Unmarked: the sums over axis 1 against a serial reference (small
    // integers and halves: every order of the sum is exact).
    const auto seed = test::fresh_seed();
    INFO("shape " << s.str() << " no throw, seed " << seed);
    auto hx = test::random_vector<float>(n, seed, 0.0, 8.0);
    for (auto& v : hx) v = static_cast<float>(static_cast<int>(v));
    const auto x = ufunc::asarray<H>(hx, s);
    auto r = ufunc::asarray<H>(sentinel<float>(static_cast<std::size_t>(rows), seed + 1), ufunc::shape{rows});
    ufunc::map_reduce(map, ufunc::plus{})(x, ufunc::axis(1), ufunc::out(r));
    bool ok = true;
    for (index_t i = 0; i < rows; ++i) {
      float want = 0;
      for (index_t j = 0; j < cols; ++j) want += hx[static_cast<std::size_t>(i * cols + j)] * 0.5f;
      ok = ok && r.data()[i] == want;
    }
    CHECK(ok);
  }
}

TEST_CASE("throwing function: sharded calls on host shards leave every out shard untouched") {
  const auto f = ufunc::vectorize<H>(unary_thrower{}, "thrower");
  const ufunc::device_set d{0, 1, 2};
  for (std::size_t n : sizes()) {
    const ufunc::shape s{static_cast<index_t>(n)};
    for (std::size_t k : positions(n)) {
      const auto seed = test::fresh_seed();
      INFO("n " << n << " over " << d.str() << " throwing at " << k << " seed " << seed);
      const auto hx = marked_data(n, seed, {k});
      const auto x = ufunc::shard<H>(hx, s, d);
      const auto s0 = sentinel<float>(n, seed + 1);
      auto y = ufunc::shard<H>(s0, s, d);
      auto bits_kept = [&] {
        const auto now = y.to_host();
        return same_bits(now.data(), s0);
      };
      expect_bad_element(static_cast<long long>(k), [&] { f(x, ufunc::out(y)); });
      CHECK(bits_kept());
      expect_bad_element(static_cast<long long>(k), [&] { ufunc::evaluate(f.lazy(x) * 2.0f, ufunc::out(y)); });
      CHECK(bits_kept());
      expect_bad_element(static_cast<long long>(k), [&] { (void)f(x); });
      // Unmarked: every shard written.
      auto hx2 = hx;
      hx2[k] = 2.5f;
      const auto x2 = ufunc::shard<H>(hx2, s, d);
      f(x2, ufunc::out(y));
      const auto got = y.to_host();
      bool ok = true;
      for (std::size_t i = 0; i < n; ++i) ok = ok && got[i] == ref_unary(hx2[i]);
      CHECK(ok);
    }
  }
}

TEST_CASE("elementwise calls write out in place: no allocation; reductions with a noexcept map too") {
  const auto f = ufunc::vectorize<H>([](float x) noexcept { return x * 3.0f + 1.0f; }, "nothrow");
  const auto may = ufunc::vectorize<H>([](float x) { return x * 3.0f + 1.0f; }, "may_throw");
  static_assert(ufunc::detail::nothrow_call_v<decltype(f.function()), float>);
  static_assert(!ufunc::detail::nothrow_call_v<decltype(may.function()), float>);
  for (std::size_t n : sizes()) {
    const auto seed = test::fresh_seed();
    INFO("n " << n << " seed " << seed);
    const auto hx = test::random_vector<float>(n, seed, 0.0, 10.0);
    const auto hy = test::random_vector<float>(n, seed + 1, 0.0, 10.0);
    const auto x = ufunc::asarray<H>(hx, ufunc::shape{static_cast<index_t>(n)});
    const auto y = ufunc::asarray<H>(hy, ufunc::shape{static_cast<index_t>(n)});
    auto z = ufunc::asarray<H>(sentinel<float>(n, seed + 2), ufunc::shape{static_cast<index_t>(n)});
    auto attempts = [](auto&& call) {
      const long long a0 = alloc::allocation_attempts();
      call();
      return alloc::allocation_attempts() - a0;
    };
    CHECK(attempts([&] { f(x, ufunc::out(z)); }) == 0);
    bool ok = true;
    for (std::size_t i = 0; i < n; ++i) ok = ok && z.data()[i] == hx[i] * 3.0f + 1.0f;
    CHECK(ok);
    // A function that may throw writes in place as well.
    auto z2 = ufunc::asarray<H>(sentinel<float>(n, seed + 3), ufunc::shape{static_cast<index_t>(n)});
    CHECK(attempts([&] { may(x, ufunc::out(z2)); }) == 0);
    CHECK(std::memcmp(z.data(), z2.data(), n * sizeof(float)) == 0);
    // An expression of noexcept functions and operators on floats.
    CHECK(attempts([&] { ufunc::evaluate(f.lazy(x) * 2.0f + y, ufunc::out(z)); }) == 0);
    ok = true;
    for (std::size_t i = 0; i < n; ++i) ok = ok && z.data()[i] == (hx[i] * 3.0f + 1.0f) * 2.0f + hy[i];
    CHECK(ok);
    // A reduction with a noexcept map and a built-in op over the rows: no
    // temporary for out (the rows engine itself allocates nothing).
    const index_t rows = n == 10 ? 2 : 1000;
    const auto x2 = ufunc::asarray<H>(hx, ufunc::shape{rows, static_cast<index_t>(n) / rows});
    auto r = ufunc::asarray<H>(sentinel<float>(static_cast<std::size_t>(rows), seed + 4), ufunc::shape{rows});
    auto r2 = ufunc::asarray<H>(sentinel<float>(static_cast<std::size_t>(rows), seed + 5), ufunc::shape{rows});
    const auto nothrow_map = [](float v) noexcept { return v * 0.5f; };
    const auto may_map = [](float v) { return v * 0.5f; };
    const long long in_place = attempts([&] { ufunc::map_reduce(nothrow_map, ufunc::plus{})(x2, ufunc::axis(1), ufunc::out(r)); });
    const long long via_temp = attempts([&] { ufunc::map_reduce(may_map, ufunc::plus{})(x2, ufunc::axis(1), ufunc::out(r2)); });
    CHECK(in_place < via_temp);
    CHECK(std::memcmp(r.data(), r2.data(), static_cast<std::size_t>(rows) * sizeof(float)) == 0);
  }
}
