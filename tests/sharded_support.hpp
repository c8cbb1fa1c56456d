// Helpers of the sharded-array tests (issue 22), shared by test_sharded.cpp (threads,
// factories, errors, out_of_memory), test_sharded_elementwise.cpp (elementwise
// calls and lazy expressions), test_sharded_reduce.cpp (reductions and matmul)
// and test_sharded_zero.cpp, test_sharded_zero_int.cpp (zero-size reductions): one file of 700 lines was
// the longest compile of the suite (over 10 minutes of nvcc on the GPU machine,
// its build's last file), four compile side by side.
//
// Sharded arrays (issue 22): every operation (lazy expressions too) on a sharded array against the
// same operation on the unsharded array, on fresh random data. The host target
// runs with 1, 2, 3 and 4 host shards (ids only label shards there), uneven
// splits (7 rows over 3), 0-row shards (2 rows over 3), shape (1,) and 3-D
// arrays; in a CUDA build the device target runs over every visible GPU and
// over GPU 0 alone (with one GPU both are one shard, and each result is still
// checked against the unsharded call). Elementwise results and integer
// reductions must be equal bit for bit; float sums within the documented bound;
// matmul of small-integer floats exactly (every order of the sum is exact).
#pragma once

#include "test_support.hpp"

#include <algorithm>
#include <cmath>
#include <atomic>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace sharded_test {

using ufunc::index_t;

using host = ufunc::target::host;

template <class T>
std::vector<T> host_of(const ufunc::sharded_array<T, host>& a) {
  return a.to_host();
}

/// The unsharded copy of host data, on target Tg.
template <class Tg, class T>
ufunc::array<T, Tg> plain(const std::vector<T>& h, const ufunc::shape& s) {
  return ufunc::asarray<Tg>(h, s);
}

/// The device sets each target is tested with.
template <class Tg>
std::vector<ufunc::device_set> sets() {
  if constexpr (std::is_same_v<Tg, host>) {
    return {ufunc::device_set{0}, ufunc::device_set{0, 1}, ufunc::device_set{0, 1, 2}, ufunc::device_set{5, 2, 9, 3}};
  } else {
    return {ufunc::device_set{0}, ufunc::device_set()};
  }
}

inline const std::vector<ufunc::shape>& shapes() {
  static const std::vector<ufunc::shape> s{ufunc::shape{7, 3}, ufunc::shape{1}, ufunc::shape{5},
                                           ufunc::shape{2, 5}, ufunc::shape{4, 2, 3}, ufunc::shape{9, 1}};
  return s;
}

inline std::string what(const ufunc::device_set& d, const ufunc::shape& s) { return s.str() + " over " + d.str(); }

template <class Tg>
void elementwise_case(const ufunc::device_set& d, const ufunc::shape& s) {
  INFO(what(d, s));
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const auto n = static_cast<std::size_t>(s.count());
  const auto hx = test::random_vector<float>(n, seed), hy = test::random_vector<float>(n, seed + 1);
  auto f = ufunc::vectorize<Tg>([] UFUNC_HD(float a, float b) { return a * b - expf(a * 0.1f) + b; });
  const auto x = ufunc::shard<Tg>(hx, s, d), y = ufunc::shard<Tg>(hy, s, d);
  const auto px = plain<Tg>(hx, s), py = plain<Tg>(hy, s);
  CHECK(x.shape() == s);
  CHECK(x.num_shards() == d.size());
  CHECK(x.to_host() == hx);  // round trip
  const auto want = f(px, py).to_host();
  CHECK(f(x, y).to_host() == want);
  CHECK(f(x, 2.5f).to_host() == f(px, 2.5f).to_host());
  // A plain operand broadcasting against each shard: the last dims, and with extent 1 on axis 0.
  if (s.size() >= 2) {
    std::vector<index_t> tail(s.begin() + 1, s.end()), one(s.begin(), s.end());
    one[0] = 1;
    const auto hb = test::random_vector<float>(static_cast<std::size_t>(ufunc::shape(tail).count()), seed + 2);
    const auto b = plain<Tg>(hb, ufunc::shape(tail)), b1 = plain<Tg>(hb, ufunc::shape(one));
    CHECK(f(x, b).to_host() == f(px, b).to_host());
    CHECK(f(b1, x).to_host() == f(b1, px).to_host());
  }
  // out: a fresh sharded array, and in place.
  auto z = ufunc::empty<float, Tg>(s, d);
  auto& zr = f(x, y, ufunc::out(z));
  CHECK(&zr == &z);
  CHECK(z.to_host() == want);
  auto w = ufunc::shard<Tg>(hx, s, d);
  f(w, y, ufunc::out(w));
  CHECK(w.to_host() == want);
  CHECK(x.to_host() == hx);  // inputs untouched
}

template <class Tg>
void float_reduce_case(const ufunc::device_set& d, const ufunc::shape& s) {
  INFO(what(d, s));
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const auto n = static_cast<std::size_t>(s.count());
  const auto hx = test::random_vector<float>(n, seed);
  const auto x = ufunc::shard<Tg>(hx, s, d);
  const auto px = plain<Tg>(hx, s);
  double abs_sum = 0;
  for (float v : hx) abs_sum += std::fabs(v);
  // The documented bound: each shard's tree sum, then D partials combined.
  const double bound = (std::log2(double(n) + 1) + d.size() + 2) * 1.2e-7 * abs_sum;
  CHECK(std::fabs(double(ufunc::sum(x)) - double(ufunc::sum(px))) <= bound);
  // min and max are exact in any order.
  CHECK(ufunc::min(x) == ufunc::min(px));
  CHECK(ufunc::max(x) == ufunc::max(px));
  // Sums of squares: the same bound over sum x^2, one more rounding (the square).
  double sq_sum = 0;
  for (float v : hx) sq_sum += double(v) * double(v);
  const double sq_bound = (std::log2(double(n) + 1) + d.size() + 3) * 1.2e-7 * sq_sum;
  auto sq = ufunc::map_reduce([] UFUNC_HD(float v) { return v * v; }, ufunc::plus{});
  CHECK(std::fabs(double(sq(x)) - double(sq(px))) <= sq_bound);
  for (int ax = -s.size(); ax < s.size(); ++ax) {
    INFO("axis " << ax);
    const auto got = ufunc::max(x, ufunc::axis(ax)).to_host();
    CHECK(got == ufunc::max(px, ufunc::axis(ax)).to_host());
    const auto gs = ufunc::sum(x, ufunc::axis(ax), ufunc::keepdims).to_host();
    const auto ws = ufunc::sum(px, ufunc::axis(ax), ufunc::keepdims).to_host();
    REQUIRE(gs.size() == ws.size());
    for (std::size_t i = 0; i < gs.size(); ++i) CHECK(std::fabs(double(gs[i]) - double(ws[i])) <= bound);
  }
}

template <class Tg>
void int_reduce_case(const ufunc::device_set& d, const ufunc::shape& s) {
  INFO(what(d, s));
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const auto n = static_cast<std::size_t>(s.count());
  const auto hx = test::random_vector<int>(n, seed, -1000, 1000);
  auto hp = test::random_vector<int>(n, seed + 1, -1, 1);
  for (auto& v : hp) v = v == 0 ? 1 : v;  // products of +-1: exact, no overflow
  const auto x = ufunc::shard<Tg>(hx, s, d), xp = ufunc::shard<Tg>(hp, s, d);
  const auto px = plain<Tg>(hx, s), pp = plain<Tg>(hp, s);
  CHECK(ufunc::sum(x) == ufunc::sum(px));
  CHECK(ufunc::prod(xp) == ufunc::prod(pp));
  CHECK(ufunc::min(x) == ufunc::min(px));
  CHECK(ufunc::max(x) == ufunc::max(px));
  auto sq = ufunc::map_reduce([] UFUNC_HD(int v) { return static_cast<long long>(v) * v; }, ufunc::plus{});
  CHECK(sq(x) == sq(px));
  // A custom op (no identity) and one with an initial value, which applies once.
  auto bor_commutative = ufunc::reduce([] UFUNC_HD(int a, int b) { return a | b; });
  CHECK(bor_commutative(x) == bor_commutative(px));
  auto sum100 = ufunc::reduce([] UFUNC_HD(long long a, long long b) { return a + b; }, 100LL);
  CHECK(sum100(x) == sum100(px));
  auto f = ufunc::vectorize<Tg>([] UFUNC_HD(int a, int b) { return a + b; });
  CHECK(f.reduce(x).to_host() == f.reduce(px).to_host());  // axis 0, NumPy's default
  for (int ax = 0; ax < s.size(); ++ax) {
    INFO("axis " << ax);
    CHECK(ufunc::sum(x, ufunc::axis(ax)).to_host() == ufunc::sum(px, ufunc::axis(ax)).to_host());
    CHECK(ufunc::min(x, ufunc::axis(ax), ufunc::keepdims).to_host() ==
          ufunc::min(px, ufunc::axis(ax), ufunc::keepdims).to_host());
    CHECK(sum100(x, ufunc::axis(ax)).to_host() == sum100(px, ufunc::axis(ax)).to_host());
    CHECK(bor_commutative(x, ufunc::axis(ax)).to_host() == bor_commutative(px, ufunc::axis(ax)).to_host());
    // Along an axis other than 0 the result stays sharded like the input.
    const auto r = ufunc::sum(x, ufunc::axis(ax));
    CHECK(r.num_shards() == (ax == 0 ? 1 : d.size()));
    if (ax == 0) CHECK(r.devices() == ufunc::device_set{d[0]});
  }
  if (s.size() >= 2) {
    CHECK(ufunc::sum(x, ufunc::axes{0, 1}).to_host() == ufunc::sum(px, ufunc::axes{0, 1}).to_host());
    CHECK(ufunc::max(x, ufunc::axes{1, 0}, ufunc::keepdims).to_host() ==
          ufunc::max(px, ufunc::axes{1, 0}, ufunc::keepdims).to_host());
  }
  CHECK(ufunc::sum(x, ufunc::keepdims).to_host() == ufunc::sum(px, ufunc::keepdims).to_host());
}

template <class Tg>
void matmul_case(const ufunc::device_set& d) {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed << " over " << d.str());
  for (const auto& sa : {ufunc::shape{7, 4}, ufunc::shape{2, 4}, ufunc::shape{3, 5, 4}, ufunc::shape{40, 4}}) {
    INFO("A " << sa.str());
    const auto ha = test::random_vector<float>(static_cast<std::size_t>(sa.count()), seed, -4, 4);
    auto hai = ha;
    for (auto& v : hai) v = std::round(v);  // small integers: every sum is exact
    const auto hb = test::random_vector<int>(4 * 6, seed + 1, -3, 3);
    std::vector<float> hbf(hb.begin(), hb.end());
    const auto a = ufunc::shard<Tg>(hai, sa, d);
    const auto pa = plain<Tg>(hai, sa), b = plain<Tg>(hbf, ufunc::shape{4, 6});
    const auto c = ufunc::matmul(a, b);
    CHECK(c.rows() == a.rows());
    CHECK(c.to_host() == ufunc::matmul(pa, b).to_host());
    // B as a strided view (its transpose's transpose, copied before the broadcast).
    const auto bt = ufunc::transpose(b);
    CHECK(ufunc::matmul(a, bt.view().transposed()).to_host() == ufunc::matmul(pa, b).to_host());
  }
}

/// Lazy expressions over sharded arrays: f.lazy, nested nodes, ufunc::lazy and
/// the C++ operators, evaluate (new and into a sharded out), an eager call and
/// reductions with a sharded expression among the inputs, a replicated row, an
/// owned rvalue shard set; each against the same expression of the unsharded
/// arrays (per element the same fused function: bit for bit; sums within the bound).
template <class Tg>
void lazy_case(const ufunc::device_set& d, const ufunc::shape& s) {
  INFO("lazy " << what(d, s));
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const auto n = static_cast<std::size_t>(s.count());
  const auto hx = test::random_vector<float>(n, seed), hy = test::random_vector<float>(n, seed + 1);
  auto hz = test::random_vector<float>(n, seed + 2);
  for (auto& v : hz) v = v < 0 ? v - 0.5f : v + 0.5f;  // divisors away from 0
  auto f = ufunc::vectorize<Tg>([] UFUNC_HD(float a, float b) { return a * b - expf(a * 0.1f) + b; });
  auto g = ufunc::vectorize<Tg>([] UFUNC_HD(float a, float c) { return a * c + 1.0f; });
  const auto x = ufunc::shard<Tg>(hx, s, d), y = ufunc::shard<Tg>(hy, s, d), z = ufunc::shard<Tg>(hz, s, d);
  const auto px = plain<Tg>(hx, s), py = plain<Tg>(hy, s), pz = plain<Tg>(hz, s);
  // Nested f.lazy nodes with a scalar.
  const auto e = g.lazy(f.lazy(x, y), 0.5f);
  CHECK(e.shape() == s);
  const auto want = ufunc::evaluate(g.lazy(f.lazy(px, py), 0.5f)).to_host();
  const auto got = ufunc::evaluate(e);
  CHECK(got.devices() == d);
  CHECK(got.to_host() == want);
  // ufunc::lazy and the operators, into a sharded out.
  const auto e2 = (ufunc::lazy(x) * 2.0f + y) / z - f.lazy(x, y);
  const auto want2 = ufunc::evaluate((ufunc::lazy(px) * 2.0f + py) / pz - f.lazy(px, py)).to_host();
  auto o = ufunc::empty<float, Tg>(s, d);
  auto& orf = ufunc::evaluate(e2, ufunc::out(o));
  CHECK(&orf == &o);
  CHECK(o.to_host() == want2);
  CHECK(ufunc::evaluate(-e2).to_host() == ufunc::evaluate(-((ufunc::lazy(px) * 2.0f + py) / pz - f.lazy(px, py))).to_host());
  // An eager call with a sharded expression among its inputs: one fused call per shard.
  CHECK(g(f.lazy(x, y), z).to_host() == g(f.lazy(px, py), pz).to_host());
  // A named plain row, replicated to the devices when the expression runs.
  if (s.size() >= 2) {
    std::vector<index_t> tail(s.begin() + 1, s.end());
    const auto hb = test::random_vector<float>(static_cast<std::size_t>(ufunc::shape(tail).count()), seed + 3);
    const auto b = plain<Tg>(hb, ufunc::shape(tail));
    CHECK(ufunc::evaluate(f.lazy(x, b) * 3.0f).to_host() == ufunc::evaluate(f.lazy(px, b) * 3.0f).to_host());
  }
  // An rvalue sharded array, owned by the expression (evaluated after the statement that made it).
  const auto e3 = f.lazy(ufunc::shard<Tg>(hz, s, d), y);
  CHECK(ufunc::evaluate(e3).to_host() == f(pz, py).to_host());
  // Reductions of a sharded expression: whole and along the last axis.
  double abs_sum = 0;
  for (float v : want) abs_sum += std::fabs(v);
  const double bound = (std::log2(double(n) + 1) + d.size() + 2) * 1.2e-7 * abs_sum;
  CHECK(std::fabs(double(ufunc::sum(e)) - double(ufunc::sum(g.lazy(f.lazy(px, py), 0.5f)))) <= bound);
  CHECK(ufunc::max(e) == ufunc::max(g.lazy(f.lazy(px, py), 0.5f)));
  const int last = static_cast<int>(s.size()) - 1;
  const auto gs = ufunc::sum(e, ufunc::axis(last)).to_host();
  const auto ws = ufunc::sum(g.lazy(f.lazy(px, py), 0.5f), ufunc::axis(last)).to_host();
  REQUIRE(gs.size() == ws.size());
  for (std::size_t i = 0; i < gs.size(); ++i) CHECK(std::fabs(double(gs[i]) - double(ws[i])) <= bound);
  CHECK(x.to_host() == hx);  // inputs untouched
  // Shardings that differ are refused when the expression is built.
  if (d.size() > 1) {
    const auto y1 = ufunc::shard<Tg>(hy, s, ufunc::device_set{d[0]});
    CHECK_THROWS_AS(f.lazy(x, y1), ufunc::shape_error);
    CHECK_THROWS_AS(ufunc::lazy(x) + y1, ufunc::shape_error);
  }
}

/// Elementwise calls and lazy expressions on every test shape over d
/// (test_sharded_elementwise.cpp).
template <class Tg>
void run_elementwise(const ufunc::device_set& d) {
  for (const auto& s : shapes()) {
    lazy_case<Tg>(d, s);
    elementwise_case<Tg>(d, s);
  }
}

/// Float and integer reductions on every test shape over d, and matmul
/// (test_sharded_reduce.cpp).
template <class Tg>
void run_reductions(const ufunc::device_set& d) {
  for (const auto& s : shapes()) {
    float_reduce_case<Tg>(d, s);
    int_reduce_case<Tg>(d, s);
  }
  matmul_case<Tg>(d);
}

/// One thread's work for the concurrency case: a sharded call chain checked
/// against the unsharded one; returns the number of mismatches.
template <class Tg>
int thread_case(const ufunc::device_set& d, std::uint64_t seed) {
  const ufunc::shape s{37, 5};
  const auto h = test::random_vector<int>(static_cast<std::size_t>(s.count()), seed, -50, 50);
  auto f = ufunc::vectorize<Tg>([] UFUNC_HD(int a, int b) { return a * b - 3; });
  // 20 iterations a thread at the default stress count; fewer under the
  // sanitizers (racecheck took over 500 s for the 20).
  const int iterations = static_cast<int>(std::clamp((20 * test::stress_iterations() + 3999) / 4000, 1L, 20L));
  int bad = 0;
  for (int it = 0; it < iterations; ++it) {
    const auto x = ufunc::shard<Tg>(h, s, d);
    const auto px = plain<Tg>(h, s);
    bad += f(x, x).to_host() != f(px, px).to_host();
    bad += ufunc::sum(f(x, 2)) != ufunc::sum(f(px, 2));
    bad += ufunc::max(x, ufunc::axis(0)).to_host() != ufunc::max(px, ufunc::axis(0)).to_host();
  }
  return bad;
}

template <class Tg>
void threads_case(const ufunc::device_set& d) {
  std::atomic<int> bad{0};
  std::vector<std::thread> ts;
  const auto seed = test::fresh_seed();
  INFO("seed " << seed << " over " << d.str());
  for (int t = 0; t < 4; ++t)
    ts.emplace_back([&, t] {
      try {
        bad += thread_case<Tg>(d, seed + static_cast<std::uint64_t>(t));
      } catch (...) {
        bad += 1000;
      }
    });
  for (auto& t : ts) t.join();
  CHECK(bad.load() == 0);
}

/// A call's outcome: its result (shape and values as doubles; a host value is
/// 0-d) or the type of the error it threw, to compare a sharded call with the
/// unsharded one.
struct outcome {
  std::string error;
  ufunc::shape shp;
  std::vector<double> values;
};

template <class R>
void record(outcome& o, const R& r) {
  if constexpr (std::is_arithmetic_v<R>) {
    o.shp = ufunc::shape{};
    o.values = {static_cast<double>(r)};
  } else {
    o.shp = r.shape();
    const auto h = r.to_host();
    o.values.assign(h.begin(), h.end());
  }
}

template <class Fn>
outcome outcome_of(Fn&& fn) {
  outcome o;
  try {
    record(o, fn());
  } catch (const ufunc::value_error&) {
    o.error = "value_error";
  } catch (const ufunc::shape_error&) {
    o.error = "shape_error";
  }
  return o;
}

/// Equal results (NaN equals NaN: the mean of nothing), or the same error.
inline bool same_outcome(const outcome& a, const outcome& b) {
  if (a.error != b.error || a.shp != b.shp || a.values.size() != b.values.size()) return false;
  for (std::size_t i = 0; i < a.values.size(); ++i)
    if (!(a.values[i] == b.values[i] || (std::isnan(a.values[i]) && std::isnan(b.values[i])))) return false;
  return true;
}

inline std::string str(const outcome& o) {
  if (!o.error.empty()) return o.error;
  std::string s = o.shp.str() + " [";
  for (std::size_t i = 0; i < o.values.size() && i < 8; ++i) s += (i ? " " : "") + std::to_string(o.values[i]);
  return s + (o.values.size() > 8 ? " ...]" : "]");
}

struct square_map {
  template <class T>
  UFUNC_HD T operator()(T v) const { return v * v; }
};
/// A custom op with no identity (the larger value).
struct larger_op {
  template <class T>
  UFUNC_HD T operator()(T a, T b) const { return a > b ? a : b; }
};
struct add_fn {
  template <class T>
  UFUNC_HD T operator()(T a, T b) const { return a + b; }
};

/// A sharded array of `h` (shape s) over d: split evenly (ufunc::shard) or, one
/// time in two, any split with `from_shards` (leading, inner and trailing 0-row
/// shards included).
template <class Tg, class T>
ufunc::sharded_array<T, Tg> random_split(const std::vector<T>& h, const ufunc::shape& s, const ufunc::device_set& d,
                                         std::mt19937_64& rng) {
  if (rng() % 2 == 0) return ufunc::shard<Tg>(h, s, d);
  std::vector<index_t> rows(static_cast<std::size_t>(d.size()), 0);
  for (index_t r = 0; r < s[0]; ++r) rows[static_cast<std::size_t>(rng() % rows.size())] += 1;
  const index_t row = s.count() == 0 ? 0 : s.count() / s[0];
  std::vector<ufunc::array<T, Tg>> parts;
  index_t r0 = 0;
  for (int i = 0; i < d.size(); ++i) {
    const auto k = rows[static_cast<std::size_t>(i)];
    const std::vector<T> part(h.begin() + r0 * row, h.begin() + (r0 + k) * row);
    ufunc::detail::device_guard<Tg> g(d[i]);
    parts.push_back(ufunc::asarray<Tg>(part, ufunc::detail::with_rows(s, k)));
    r0 += k;
  }
  return ufunc::sharded_array<T, Tg>::from_shards(d, std::move(parts));
}

/// Sharded reductions of random shapes with zero-size dims (the sharded axis
/// too), over 1 to 4 shards with any split, against the unsharded call: every
/// op (sum, prod, min, max, mean, map_reduce, reduce with and without an
/// initial value, f.reduce, a sum of a lazy expression), whole, over a random
/// set of axes with and without keepdims, and keepdims alone. The values (0 and
/// +-2^k halves) make every sum and product exact in any order, so the results
/// (or the error type: value_error for an empty min/max) must be the same.
template <class Tg, class T>
void zero_size_reduce_cases(const std::vector<ufunc::device_set>& sets, int cases) {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  auto f = ufunc::vectorize<Tg>(add_fn{});
  const auto sq = ufunc::map_reduce(square_map{}, ufunc::plus{});
  const auto larger = ufunc::reduce(larger_op{});
  const auto larger_init = ufunc::reduce(larger_op{}, T(-7));
  const auto sum_init = ufunc::reduce(ufunc::plus{}, T(5));
  int zero_cases = 0;
  for (int c = 0; c < cases; ++c) {
    const int rank = 1 + static_cast<int>(rng() % 4);
    std::vector<index_t> dims;
    for (int k = 0; k < rank; ++k) dims.push_back(rng() % 3 == 0 ? 0 : static_cast<index_t>(rng() % 4));
    const ufunc::shape s(dims);
    zero_cases += s.count() == 0;
    const auto& d = sets[rng() % sets.size()];
    std::vector<int> ax;
    for (int k = 0; k < rank; ++k)
      if (rng() % 2) ax.push_back(rng() % 4 == 0 ? k - rank : k);
    std::vector<T> h(static_cast<std::size_t>(s.count()));
    const T vals[] = {T(-2), T(-1), T(1), T(2), T(0)};
    for (auto& v : h) v = vals[rng() % 5];
    const auto x = random_split<Tg>(h, s, d, rng);
    const auto px = plain<Tg>(h, s);
    std::string axs = "(";
    for (int a : ax) axs += std::to_string(a) + ",";
    INFO("case " << c << ": " << s.str() << " as " << x.sharding() << ", axes " << axs << ")");
    auto compare = [&](const char* what, const auto& call) {
      INFO(what);
      const outcome got = outcome_of([&] { return call(x); }), want = outcome_of([&] { return call(px); });
      INFO("sharded " << str(got) << ", unsharded " << str(want));
      CHECK(same_outcome(got, want));
    };
    auto forms = [&](const char* what, const auto& red) {
      INFO(what);
      compare("whole", [&](const auto& a) { return red(a); });
      compare("axes", [&](const auto& a) { return red(a, ufunc::axes(ax)); });
      compare("axes, keepdims", [&](const auto& a) { return red(a, ufunc::axes(ax), ufunc::keepdims); });
      compare("keepdims", [&](const auto& a) { return red(a, ufunc::keepdims); });
      compare("axis 0", [&](const auto& a) { return red(a, ufunc::axis(0)); });
    };
    forms("sum", ufunc::sum);
    forms("prod", ufunc::prod);
    forms("min", ufunc::min);
    forms("max", ufunc::max);
    forms("mean", ufunc::mean);
    forms("map_reduce(square, plus)", sq);
    forms("reduce(larger)", larger);
    forms("reduce(larger, -7)", larger_init);
    forms("reduce(plus, 5)", sum_init);
    compare("f.reduce", [&](const auto& a) { return f.reduce(a); });
    compare("sum of a lazy expression", [&](const auto& a) { return ufunc::sum(ufunc::lazy(a) * T(2), ufunc::axes(ax)); });
    compare("whole sum of a lazy expression", [&](const auto& a) { return ufunc::sum(ufunc::lazy(a) * T(2)); });
  }
  CHECK(zero_cases > cases / 4);  // the cases this is about
}

}  // namespace sharded_test
