// Sharded arrays (issue 22): concurrent sharded calls, the row split, factories,
// mismatched shardings and device sets, out_of_memory. The operations against
// the unsharded calls: test_sharded_elementwise.cpp, test_sharded_reduce.cpp,
// test_sharded_zero.cpp (helpers and what they check: sharded_support.hpp).
#include "sharded_support.hpp"

#include <algorithm>
#include <cmath>
#include <cuda/std/array>
#include <random>
#include <stdexcept>
#include <functional>
#include <string>
#include <vector>

using namespace sharded_test;

TEST_CASE("sharded: four host threads driving sharded calls at once (shared streams and communicators)") {
  threads_case<host>(ufunc::device_set{0, 1, 2});
#if defined(UFUNC_BACKEND_CUDA)
  const ufunc::device_set all;
  if (all.size() == 1 || ufunc::have_nccl) threads_case<ufunc::target::device>(all);
#endif
}

TEST_CASE("sharded: the row split and the replication rule (detail/sharded.hpp)") {
  using ufunc::detail::split_rows;
  CHECK(split_rows(7, 3) == std::vector<index_t>{3, 2, 2});
  CHECK(split_rows(6, 2) == std::vector<index_t>{3, 3});
  CHECK(split_rows(2, 3) == std::vector<index_t>{1, 1, 0});
  CHECK(split_rows(0, 2) == std::vector<index_t>{0, 0});
  CHECK(split_rows(1, 1) == std::vector<index_t>{1});
  CHECK(ufunc::detail::row_offsets({3, 2, 2}) == std::vector<index_t>{0, 3, 5});
  CHECK_THROWS_AS(split_rows(5, 0), ufunc::value_error);
  for (index_t n : {0, 1, 5, 1000, 1001}) {
    for (int dd = 1; dd <= 8; ++dd) {
      const auto r = split_rows(n, dd);
      index_t tot = 0;
      for (auto v : r) tot += v;
      CHECK(tot == n);
      CHECK(*std::max_element(r.begin(), r.end()) - *std::min_element(r.begin(), r.end()) <= 1);
    }
  }
  using ufunc::detail::replicable;
  CHECK(replicable(ufunc::shape{3}, 2));
  CHECK(replicable(ufunc::shape{1, 3}, 2));
  CHECK(replicable(ufunc::shape{}, 1));
  CHECK_FALSE(replicable(ufunc::shape{4, 3}, 2));
  CHECK_FALSE(replicable(ufunc::shape{1, 4, 3}, 2));
  CHECK_FALSE(replicable(ufunc::shape{3}, 1));
  CHECK(replicable(ufunc::shape{1}, 1));
}

TEST_CASE("sharded: factories, from_shards and to_host") {
  using ufunc::device_set;
  const device_set d{0, 1, 2};
  const auto z = ufunc::zeros<int, host>(ufunc::shape{7, 2}, d);
  CHECK(z.rows() == std::vector<index_t>{3, 2, 2});
  CHECK(z.to_host() == std::vector<int>(14, 0));
  const auto f = ufunc::full<double, host>(ufunc::shape{2, 3}, 2.5, d);
  CHECK(f.rows() == std::vector<index_t>{1, 1, 0});
  CHECK(f.to_host() == std::vector<double>(6, 2.5));
  CHECK(f.sharding() == "(2,3) over devices {0,1,2} as rows {1,1,0}");
  const auto e = ufunc::empty<float, host>(ufunc::shape{4, 2, 3}, d);
  CHECK(e.shard(0).shape() == ufunc::shape{2, 2, 3});
  CHECK(e.shard(2).shape() == ufunc::shape{1, 2, 3});
  // Sharding an array, and a strided view of one.
  std::vector<float> h(12);
  for (int i = 0; i < 12; ++i) h[static_cast<std::size_t>(i)] = float(i);
  const auto a = ufunc::asarray<host>(h, ufunc::shape{3, 4});
  CHECK(ufunc::shard(a, d).to_host() == h);
  const auto t = ufunc::shard(a.view().transposed(), device_set{0, 1});
  CHECK(t.shape() == ufunc::shape{4, 3});
  CHECK(t.to_host() == ufunc::transpose(a).to_host());
  // from_shards: any split.
  std::vector<ufunc::array<float, host>> parts;
  parts.push_back(ufunc::full<float, host>(ufunc::shape{1, 4}, 1.f));
  parts.push_back(ufunc::full<float, host>(ufunc::shape{3, 4}, 2.f));
  const auto u = ufunc::sharded_array<float, host>::from_shards(device_set{0, 1}, std::move(parts));
  CHECK(u.shape() == ufunc::shape{4, 4});
  CHECK(u.rows() == std::vector<index_t>{1, 3});
  CHECK(ufunc::sum(u) == 28.f);
  std::vector<ufunc::array<float, host>> bad;
  bad.push_back(ufunc::full<float, host>(ufunc::shape{1, 4}, 1.f));
  bad.push_back(ufunc::full<float, host>(ufunc::shape{1, 3}, 1.f));
  using sharded = ufunc::sharded_array<float, host>;
  CHECK_THROWS_AS(sharded::from_shards(device_set{0, 1}, std::move(bad)), ufunc::shape_error);
  CHECK_THROWS_AS(ufunc::shard<host>(h, ufunc::shape{5}, d), ufunc::shape_error);
  CHECK_THROWS_AS((ufunc::empty<float, host>(ufunc::shape{}, d)), ufunc::shape_error);
}

TEST_CASE("sharded: mismatched shardings and plain operands covering axis 0 are shape_errors naming both") {
  using ufunc::device_set;
  auto f = ufunc::vectorize<host>([](float a, float b) { return a + b; });
  const auto x = ufunc::zeros<float, host>(ufunc::shape{7, 3}, device_set{0, 1, 2});
  std::vector<ufunc::array<float, host>> parts;
  parts.push_back(ufunc::zeros<float, host>(ufunc::shape{2, 3}));
  parts.push_back(ufunc::zeros<float, host>(ufunc::shape{2, 3}));
  parts.push_back(ufunc::zeros<float, host>(ufunc::shape{3, 3}));
  const auto y = ufunc::sharded_array<float, host>::from_shards(device_set{0, 1, 2}, std::move(parts));
  const auto other = ufunc::zeros<float, host>(ufunc::shape{7, 3}, device_set{0, 1, 3});
  auto message = [](auto&& call) {
    try {
      call();
    } catch (const ufunc::shape_error& e) {
      return std::string(e.what());
    }
    return std::string("no shape_error");
  };
  const std::string m1 = message([&] { (void)f(x, y); });
  CHECK(m1.find("rows {3,2,2}") != std::string::npos);
  CHECK(m1.find("rows {2,2,3}") != std::string::npos);
  const std::string m2 = message([&] { (void)f(x, other); });
  CHECK(m2.find("devices {0,1,2}") != std::string::npos);
  CHECK(m2.find("devices {0,1,3}") != std::string::npos);
  auto z = ufunc::empty<float, host>(ufunc::shape{7, 3}, device_set{0, 1});
  CHECK(message([&] { (void)f(x, x, ufunc::out(z)); }).find("rows {4,3}") != std::string::npos);
  // A plain array with the full axis 0 is not replicated.
  const auto p = ufunc::zeros<float, host>(ufunc::shape{7, 3});
  CHECK(message([&] { (void)f(x, p); }).find("cannot be replicated") != std::string::npos);
  CHECK(message([&] { (void)ufunc::matmul(x, p); }).find("(7,3)") != std::string::npos);
  CHECK_THROWS_AS(ufunc::sum(x, ufunc::axis(2)), ufunc::shape_error);
}

TEST_CASE("sharded: device sets out of range, repeated or empty, and several GPUs without NCCL") {
  using ufunc::device_set;
  CHECK_THROWS_AS((ufunc::zeros<float, host>(ufunc::shape{4}, device_set{-1})), ufunc::value_error);
  CHECK_THROWS_AS((ufunc::zeros<float, host>(ufunc::shape{4}, device_set{1, 1})), ufunc::value_error);
  CHECK_THROWS_AS((ufunc::zeros<float, host>(ufunc::shape{4}, device_set(std::vector<int>{}))), ufunc::value_error);
#if defined(UFUNC_BACKEND_CUDA)
  using dev = ufunc::target::device;
  const int n = static_cast<int>(ufunc::devices().size());
  CHECK_THROWS_AS((ufunc::zeros<float, dev>(ufunc::shape{4}, device_set{n})), ufunc::value_error);
  CHECK_THROWS_AS((ufunc::shard<dev>(std::vector<float>(4), device_set{0, n + 3})), ufunc::value_error);
  if (n >= 2 && !ufunc::have_nccl) {
    try {
      (void)ufunc::zeros<float, dev>(ufunc::shape{4}, device_set{0, 1});
      FAIL("no error for two GPUs without NCCL");
    } catch (const ufunc::value_error& e) {
      CHECK(std::string(e.what()).find("NCCL") != std::string::npos);
    }
  }
#endif
}

#if defined(UFUNC_TESTING)
namespace {
/// Fails each allocation of `call` in turn: every one must throw out_of_memory,
/// leave no allocation alive and the input as it was; then the call succeeds.
template <class Call>
void every_allocation_fails(const char* name, const std::vector<float>& input_now_ref,
                            const std::function<std::vector<float>()>& input_now, Call&& call) {
  namespace alloc = ufunc::detail::testing;
  INFO(name);
  (void)call();
  const long long live0 = alloc::live_allocations();
  const long long a0 = alloc::allocation_attempts();
  (void)call();
  const long long n = alloc::allocation_attempts() - a0;
  CHECK(n >= 1);
  CHECK(alloc::live_allocations() == live0);
  for (long long k = 1; k <= n; ++k) {
    INFO("allocation " << k << " of " << n << " refused");
    alloc::set_allocation_limit(k);
    bool threw = false;
    try {
      (void)call();
    } catch (const ufunc::out_of_memory&) {
      threw = true;
    }
    alloc::clear_allocation_limit();
    CHECK(threw);
    CHECK(alloc::live_allocations() == live0);
    CHECK(input_now() == input_now_ref);
  }
}
/// A call that allocates nothing once warm (a sharded whole reduction: each
/// shard's value goes through the backend's reused scratch, not a partial
/// array): no allocation attempt, nothing left alive, the same value again.
template <class Call>
void allocates_nothing(const char* name, Call&& call) {
  namespace alloc = ufunc::detail::testing;
  INFO(name);
  const auto first = call();
  const long long live0 = alloc::live_allocations();
  const long long a0 = alloc::allocation_attempts();
  const auto again = call();
  CHECK(alloc::allocation_attempts() - a0 == 0);
  CHECK(alloc::live_allocations() == live0);
  CHECK(again == first);
}
}  // namespace

TEST_CASE("sharded: out_of_memory on any allocation of a sharded call frees everything and leaves the inputs") {
  using ufunc::device_set;
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const auto hx = test::random_vector<float>(7 * 5, seed);
  const device_set d{0, 1, 2};
  const auto x = ufunc::shard<host>(hx, ufunc::shape{7, 5}, d);
  const auto b = ufunc::asarray<host>(test::random_vector<float>(5 * 3, seed + 1), ufunc::shape{5, 3});
  auto f = ufunc::vectorize<host>([](float a, float c) { return a * c; });
  auto now = [&] { return x.to_host(); };
  every_allocation_fails("elementwise", hx, now, [&] { return f(x, 3.f).to_host(); });
  every_allocation_fails("sum over axis 0", hx, now, [&] { return ufunc::sum(x, ufunc::axis(0)).to_host(); });
  every_allocation_fails("max over axis 1", hx, now, [&] { return ufunc::max(x, ufunc::axis(1)).to_host(); });
  allocates_nothing("whole sum", [&] { return ufunc::sum(x); });
  allocates_nothing("whole mean", [&] { return ufunc::mean(x); });
  every_allocation_fails("matmul", hx, now, [&] { return ufunc::matmul(x, b).to_host(); });
  every_allocation_fails("shard", hx, now, [&] { return ufunc::shard<host>(hx, ufunc::shape{7, 5}, d).to_host(); });
#if defined(UFUNC_BACKEND_CUDA)
  using dev = ufunc::target::device;
  const device_set all;
  if (all.size() == 1 || ufunc::have_nccl) {
    const auto xd = ufunc::shard<dev>(hx, ufunc::shape{7, 5}, all);
    auto fd = ufunc::vectorize<dev>([] UFUNC_HD(float a, float c) { return a * c; });
    auto nowd = [&] { return xd.to_host(); };
    every_allocation_fails("device elementwise", hx, nowd, [&] { return fd(xd, 3.f).to_host(); });
    every_allocation_fails("device sum over axis 0", hx, nowd, [&] { return ufunc::sum(xd, ufunc::axis(0)).to_host(); });
    allocates_nothing("device whole sum", [&] { return ufunc::sum(xd); });
    allocates_nothing("device whole max", [&] { return ufunc::max(xd); });
  }
#endif
}
#endif

namespace {

/// NumPy's argmax/argmin of host data: the first extreme, the first NaN.
template <bool Max>
index_t first_extreme(const std::vector<float>& h, index_t start, index_t count, index_t step) {
  index_t best = 0;
  for (index_t k = 1; k < count; ++k) {
    const float b = h[static_cast<std::size_t>(start + best * step)], v = h[static_cast<std::size_t>(start + k * step)];
    if (std::isnan(b)) break;
    if (std::isnan(v) || (Max ? v > b : v < b)) best = k;
  }
  return best;
}

template <class Tg>
void arg_case(const ufunc::device_set& d, index_t rows, index_t cols, int nans, unsigned seed) {
  INFO("(" << rows << "," << cols << ") over " << d.str() << ", " << nans << " NaNs, seed " << seed);
  std::mt19937 g(seed);
  std::uniform_int_distribution<int> small(-3, 3);  // many equal values: the first one must win
  std::vector<float> h(static_cast<std::size_t>(rows * cols));
  for (auto& x : h) x = static_cast<float>(small(g));
  for (int k = 0; k < nans && !h.empty(); ++k) h[g() % h.size()] = std::nanf("");
  const auto x = ufunc::shard<Tg>(h, ufunc::shape{rows, cols}, d);
  const index_t n = rows * cols;
  CHECK(index_t(ufunc::argmax(x)) == first_extreme<true>(h, 0, n, 1));
  CHECK(index_t(ufunc::argmin(x)) == first_extreme<false>(h, 0, n, 1));
  const auto w = ufunc::argmax(x, ufunc::keepdims).to_host();  // the flat index, shape (1, 1)
  REQUIRE(w.size() == 1);
  CHECK(index_t(w[0]) == first_extreme<true>(h, 0, n, 1));
  const auto a0 = ufunc::argmax(x, ufunc::axis(0)).to_host();
  const auto i0 = ufunc::argmin(x, ufunc::axis(0), ufunc::keepdims).to_host();
  REQUIRE(a0.size() == static_cast<std::size_t>(cols));
  REQUIRE(i0.size() == static_cast<std::size_t>(cols));
  for (index_t j = 0; j < cols; ++j) {
    CHECK(index_t(a0[static_cast<std::size_t>(j)]) == first_extreme<true>(h, j, rows, cols));
    CHECK(index_t(i0[static_cast<std::size_t>(j)]) == first_extreme<false>(h, j, rows, cols));
  }
  const auto a1 = ufunc::argmax(x, ufunc::axis(1));  // stays sharded like x
  CHECK(a1.global_rows() == x.global_rows());
  const auto a1h = a1.to_host();
  for (index_t i = 0; i < rows; ++i) CHECK(index_t(a1h[static_cast<std::size_t>(i)]) == first_extreme<true>(h, i * cols, cols, 1));
}

}  // namespace

TEST_CASE("sharded: argmax and argmin (whole, axis 0, axis 1) against NumPy's first-extreme rule") {
  const auto seed = test::fresh_seed();
  for (const auto& d : sets<host>())
    for (const auto& rc : {std::pair<index_t, index_t>{7, 3}, {2, 5}, {1, 4}, {64, 17}})
      for (int nans : {0, 1, 3}) arg_case<host>(d, rc.first, rc.second, nans, seed + static_cast<unsigned>(nans));
  const auto x = ufunc::zeros<float, host>(ufunc::shape{0, 3}, ufunc::device_set{0, 1});
  CHECK_THROWS_AS((void)ufunc::argmax(x), ufunc::value_error);
  CHECK_THROWS_AS((void)ufunc::argmax(x, ufunc::axes{0, 1}), ufunc::shape_error);
  const auto none = ufunc::zeros<float, host>(ufunc::shape{4, 0}, ufunc::device_set{0, 1});  // an empty result
  CHECK(ufunc::argmax(none, ufunc::axis(0)).shape() == ufunc::shape{0});
#if defined(UFUNC_BACKEND_CUDA)
  using dev = ufunc::target::device;
  for (const auto& d : sets<dev>()) {
    if (d.size() > 1 && !ufunc::have_nccl) continue;
    arg_case<dev>(d, 64, 17, 3, seed);
  }
#endif
}

namespace {

using P3 = cuda::std::array<float, 3>;

/// Pairwise reductions with the x_i sharded and the y_j replicated (issue 40):
/// vec<3> of a sharded (N, 1, 3) array against a plain (1, M, 3) or (M, 3) one,
/// against double loops over the whole data.
template <class Tg>
void pairwise_case(const ufunc::device_set& d, index_t n, index_t m, bool y_2d, unsigned seed) {
  const std::string at = "n " + std::to_string(n) + " m " + std::to_string(m) + " over " + d.str();
  CAPTURE(at);
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> xh(static_cast<std::size_t>(n * 3)), yh(static_cast<std::size_t>(m * 3)), bh(static_cast<std::size_t>(m));
  for (auto& v : xh) v = u(g);
  for (auto& v : yh) v = u(g);
  for (auto& v : bh) v = u(g);
  const auto xs = ufunc::shard<Tg>(xh, ufunc::shape{n, 1, 3}, d);
  const auto y = plain<Tg>(yh, y_2d ? ufunc::shape{m, 3} : ufunc::shape{1, m, 3});
  const auto b = plain<Tg>(bh, y_2d ? ufunc::shape{m} : ufunc::shape{1, m});
  const auto dist2 = ufunc::vectorize<Tg>([] UFUNC_HD(P3 p, P3 q) {
    const float dx = p[0] - q[0], dy = p[1] - q[1], dz = p[2] - q[2];
    return dx * dx + dy * dy + dz * dz;
  });
  const auto k = ufunc::map_reduce([] UFUNC_HD(P3 p, P3 q, float w) {
    const float dx = p[0] - q[0], dy = p[1] - q[1], dz = p[2] - q[2];
    return expf(-0.5f * (dx * dx + dy * dy + dz * dz)) * w;
  }, ufunc::plus{});
  auto d2 = [&](index_t i, index_t j) {
    double s = 0;
    for (int c = 0; c < 3; ++c) {
      const double t = double(xh[static_cast<std::size_t>(i * 3 + c)]) - yh[static_cast<std::size_t>(j * 3 + c)];
      s += t * t;
    }
    return s;
  };
  auto term = [&](index_t i, index_t j) { return std::exp(-0.5 * d2(i, j)) * bh[static_cast<std::size_t>(j)]; };
  // Relative to sum |term|: the documented sum bounds ((32 + log2 of the count)
  // eps on the host's blocked loops and reductions, 256 + log2 on the GPU's
  // tiled kernel) plus a rounding per shard and a few of each term (the
  // differences, expf, the product), never looser than 1e-5.
  auto tol_for = [&](index_t count) {
    const double lead = std::is_same_v<Tg, host> ? 32 : 256;
    return std::min(1e-5, (lead + std::log2(double(count) + 1) + d.size() + 6) * 1.1920929e-7);
  };
  // got[o] against the sum of the terms over j (each x_i's kernel sum) or over i.
  auto sums_bad = [&](const std::vector<float>& got, bool over_j) {
    const index_t outer = over_j ? n : m, inner = over_j ? m : n;
    int bad = 0;
    for (index_t o = 0; o < outer; ++o) {
      double s = 0, sa = 0;
      for (index_t q = 0; q < inner; ++q) {
        const double t = over_j ? term(o, q) : term(q, o);
        s += t;
        sa += std::fabs(t);
      }
      bad += std::fabs(got[static_cast<std::size_t>(o)] - s) > tol_for(inner) * sa + 1e-30;
    }
    return bad;
  };

  const auto dd = dist2(ufunc::vec<3>(xs), ufunc::vec<3>(y));  // elementwise: sharded (n, m)
  REQUIRE(dd.shape() == ufunc::shape{n, m});
  CHECK(dd.devices() == d);
  const auto ddh = dd.to_host();
  int bad = 0;
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < m; ++j)
      bad += std::fabs(ddh[static_cast<std::size_t>(i * m + j)] - d2(i, j)) > 1e-6 * (1 + d2(i, j));
  CHECK(bad == 0);

  const auto a = k(ufunc::vec<3>(xs), ufunc::vec<3>(y), b, ufunc::axis(1));  // kernel sum over j
  REQUIRE(a.shape() == ufunc::shape{n});
  CHECK(sums_bad(a.to_host(), true) == 0);

  const auto c = k(ufunc::vec<3>(xs), ufunc::vec<3>(y), b, ufunc::axis(0));  // over i: the shards' partials combined
  REQUIRE(c.shape() == ufunc::shape{m});
  CHECK(sums_bad(c.to_host(), false) == 0);

  const float whole = k(ufunc::vec<3>(xs), ufunc::vec<3>(y), b);
  double s = 0, sa = 0;
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < m; ++j) s += term(i, j), sa += std::fabs(term(i, j));
  CHECK(std::fabs(whole - s) <= tol_for(n * m) * sa);

  // Nearest neighbours through a lazy node: the index's distance is the least
  // (to rounding: the device may contract to FMA), and the index a real one.
  const auto nn = ufunc::argmin(dist2.lazy(ufunc::vec<3>(xs), ufunc::vec<3>(y)), ufunc::axis(1));
  REQUIRE(nn.shape() == ufunc::shape{n});
  const auto nnh = nn.to_host();
  bad = 0;
  for (index_t i = 0; i < n; ++i) {
    const auto j = static_cast<index_t>(nnh[static_cast<std::size_t>(i)]);
    double best = d2(i, 0);
    for (index_t q = 1; q < m; ++q) best = std::min(best, d2(i, q));
    bad += j < 0 || j >= m || d2(i, j) > best + 1e-6;
  }
  CHECK(bad == 0);
}

}  // namespace

TEST_CASE("sharded: pairwise reductions with vec<D> of a sharded array (x_i sharded, y_j replicated)") {
  const auto seed = test::fresh_seed();
  for (const auto& d : sets<host>()) {
    pairwise_case<host>(d, 37, 300, false, seed);
    pairwise_case<host>(d, 2, 5, true, seed + 1);  // 0-row shards on the larger sets
    pairwise_case<host>(d, 130, 600, true, seed + 2);  // the blocked pairwise loops in every shard
  }
  // Checked before any work: the core axis, and axis 0 left to shard.
  const ufunc::device_set d{0, 1};
  const auto xs = ufunc::zeros<float, host>(ufunc::shape{4, 3}, d);
  const auto flat = ufunc::zeros<float, host>(ufunc::shape{12}, d);
  const auto y2 = ufunc::zeros<float, host>(ufunc::shape{5, 2});
  const auto dist = ufunc::map_reduce([] UFUNC_HD(P3 p, P3 q) { return p[0] * q[0]; }, ufunc::plus{});
  CHECK_THROWS_WITH_AS((void)dist(ufunc::vec<3>(flat), ufunc::vec<3>(xs), ufunc::axis(0)),
                       doctest::Contains("ufunc::vec<3> of a sharded array of shape (12,)"), ufunc::shape_error);
  const auto x2 = ufunc::zeros<float, host>(ufunc::shape{4, 1, 2}, d);
  CHECK_THROWS_AS((void)dist(ufunc::vec<3>(x2), ufunc::vec<3>(xs), ufunc::axis(1)), ufunc::shape_error);
  const auto x3 = ufunc::zeros<float, host>(ufunc::shape{4, 1, 3}, d);
  CHECK_THROWS_WITH_AS((void)dist(ufunc::vec<3>(x3), ufunc::vec<3>(y2), ufunc::axis(1)),
                       doctest::Contains("ufunc::vec<3> of an array of shape (5,2)"), ufunc::shape_error);
#if defined(UFUNC_BACKEND_CUDA)
  using dev = ufunc::target::device;
  for (const auto& ds : sets<dev>()) {
    if (ds.size() > 1 && !ufunc::have_nccl) continue;
    pairwise_case<dev>(ds, 300, 1024, false, seed + 3);  // the tiled kernel in every shard
    pairwise_case<dev>(ds, 5, 40, true, seed + 4);
  }
#endif
}

namespace {

/// Sharded reductions into out(...) against the same reductions without out.
template <class Tg>
void out_case(const ufunc::device_set& d, unsigned seed) {
  CAPTURE(d.str());
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> h(7 * 3);
  for (auto& v : h) v = u(g);
  const auto x = ufunc::shard<Tg>(h, ufunc::shape{7, 3}, d);
  // Along axis 1: a sharded out, sharded like the input.
  auto ys = ufunc::full<float, Tg>(ufunc::shape{7}, -9.f, d);
  auto& back = ufunc::sum(x, ufunc::axis(1), ufunc::out(ys));
  CHECK(&back == &ys);
  CHECK(ys.to_host() == ufunc::sum(x, ufunc::axis(1)).to_host());
  auto yk = ufunc::full<double, Tg>(ufunc::shape{7, 1}, -9.0, d);  // float into double, keepdims
  (void)ufunc::mean(x, ufunc::axis(1), ufunc::keepdims, ufunc::out(yk));
  const auto mk = ufunc::mean(x, ufunc::axis(1)).to_host();
  const auto ykh = yk.to_host();
  for (std::size_t i = 0; i < 7; ++i) CHECK(ykh[i] == double(mk[i]));
  // Over axis 0 and over every axis: a plain out.
  auto z = ufunc::full<float, Tg>(ufunc::shape{3}, -9.f);
  (void)ufunc::sum(x, ufunc::axis(0), ufunc::out(z));
  CHECK(z.to_host() == ufunc::sum(x, ufunc::axis(0)).to_host());
  auto z0 = ufunc::full<float, Tg>(ufunc::shape{}, -9.f);
  (void)ufunc::sum(x, ufunc::out(z0));
  CHECK(z0.to_host()[0] == float(ufunc::sum(x)));
  auto zi = ufunc::full<int, Tg>(ufunc::shape{3}, -9);
  (void)ufunc::max(x, ufunc::axis(0), ufunc::out(zi), ufunc::unsafe_cast);  // float into int: truncated
  const auto mx = ufunc::max(x, ufunc::axis(0)).to_host();
  const auto zih = zi.to_host();
  for (std::size_t j = 0; j < 3; ++j) CHECK(zih[j] == int(mx[j]));

  // Checked before any work; the out untouched.
  auto wrong_kind = ufunc::full<float, Tg>(ufunc::shape{7}, -9.f);
  CHECK_THROWS_WITH_AS((void)ufunc::sum(x, ufunc::axis(1), ufunc::out(wrong_kind)),
                       doctest::Contains("give a sharded array of shape (7,) as out"), ufunc::shape_error);
  auto sharded0 = ufunc::full<float, Tg>(ufunc::shape{3}, -9.f, d);
  CHECK_THROWS_WITH_AS((void)ufunc::sum(x, ufunc::axis(0), ufunc::out(sharded0)),
                       doctest::Contains("give a plain array as out"), ufunc::shape_error);
  auto short_out = ufunc::full<float, Tg>(ufunc::shape{2}, -9.f);
  CHECK_THROWS_WITH_AS((void)ufunc::sum(x, ufunc::axis(0), ufunc::out(short_out)),
                       doctest::Contains("out has shape (2,) but the result has shape (3,)"), ufunc::shape_error);
  auto ints = ufunc::full<int, Tg>(ufunc::shape{3}, -9);
  CHECK_THROWS_AS((void)ufunc::sum(x, ufunc::axis(0), ufunc::out(ints)), ufunc::type_error);
  CHECK(ints.to_host() == std::vector<int>(3, -9));
  if (d.size() > 1) {  // rows split otherwise: another set
    auto other = ufunc::full<float, Tg>(ufunc::shape{7}, -9.f, ufunc::device_set{d[0]});
    CHECK_THROWS_WITH_AS((void)ufunc::sum(x, ufunc::axis(1), ufunc::out(other)),
                         doctest::Contains("the input's rows on the same devices"), ufunc::shape_error);
  }
}

}  // namespace

TEST_CASE("sharded: reductions into out(...): sharded along kept axis 0, plain over axis 0, converted, checked first") {
  const auto seed = test::fresh_seed();
  for (const auto& d : sets<host>()) out_case<host>(d, seed);
  // A map that throws in one shard: neither out is written.
  const ufunc::device_set d{0, 1, 2};
  std::vector<float> h(6 * 2, 1.f);
  h.back() = -1.f;
  const auto x = ufunc::shard<host>(h, ufunc::shape{6, 2}, d);
  const auto picky = ufunc::map_reduce([](float a) {
    if (a < 0) throw std::runtime_error("negative");
    return a;
  }, ufunc::plus{});
  auto ys = ufunc::full<float, host>(ufunc::shape{6}, -9.f, d);
  CHECK_THROWS_AS((void)picky(x, ufunc::axis(1), ufunc::out(ys)), std::runtime_error);
  CHECK(ys.to_host() == std::vector<float>(6, -9.f));
  auto z = ufunc::full<float, host>(ufunc::shape{2}, -9.f);
  CHECK_THROWS_AS((void)picky(x, ufunc::axis(0), ufunc::out(z)), std::runtime_error);
  CHECK(z.to_host() == std::vector<float>(2, -9.f));
#if defined(UFUNC_BACKEND_CUDA)
  for (const auto& ds : sets<ufunc::target::device>()) {
    if (ds.size() > 1 && !ufunc::have_nccl) continue;
    out_case<ufunc::target::device>(ds, seed + 1);
  }
#endif
}
