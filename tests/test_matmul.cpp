// matmul (matmul.hpp): every registered variant of the build's device target
// (CUDA: naive, tiled, optimized; host build: blocked) and the host target, at
// sizes around every tile size, primes, m != n != k and a large case, on fresh
// random data with outputs poisoned first (UFUNC_POISON_ALLOCATIONS, and
// explicit NaN fills for `out` buffers). Products are compared with a
// double-precision reference by relative Frobenius error. Also numpy.matmul's
// 1-D and batch rules, strided and transposed views, `out` views, empty arrays
// and the errors. (transpose is in test_transpose.cpp.)
#include "test_support.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <omp.h>

using test::make;
using ufunc::index_t;
using ufunc::shape;

namespace {

using dims_t = std::vector<index_t>;

template <class T>
std::vector<T> normal_vector(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> d(0.0, 1.0);
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(d(rng));
  return v;
}

/// numpy.matmul in double over contiguous host data, written from NumPy's
/// definition (promotion, right-aligned batch broadcasting), independent of
/// the library's planning code. Sets `out` to the result's dims.
template <class T>
std::vector<double> ref_matmul(const std::vector<T>& a, dims_t da, const std::vector<T>& b, dims_t db, dims_t& out) {
  const bool av = da.size() == 1, bv = db.size() == 1;
  if (av) da.insert(da.begin(), 1);
  if (bv) db.push_back(1);
  const index_t m = da[da.size() - 2], k = da.back(), n = db.back();
  REQUIRE(db[db.size() - 2] == k);
  const dims_t ba(da.begin(), da.end() - 2), bb(db.begin(), db.end() - 2);
  const std::size_t nb = std::max(ba.size(), bb.size());
  dims_t batch(nb, 1);
  for (std::size_t i = 0; i < nb; ++i) {  // i counts from the right
    const index_t x = i < ba.size() ? ba[ba.size() - 1 - i] : 1, y = i < bb.size() ? bb[bb.size() - 1 - i] : 1;
    REQUIRE((x == y || x == 1 || y == 1));
    batch[nb - 1 - i] = x == 1 ? y : x;
  }
  out = batch;
  if (!av) out.push_back(m);
  if (!bv) out.push_back(n);
  const index_t count = test::count_of(batch);
  std::vector<double> r(static_cast<std::size_t>(count * m * n), 0.0);
  for (index_t z = 0; z < count; ++z) {
    const auto idx = test::unravel(z, batch);
    auto matrix_index = [&](const dims_t& bd) {  // linear batch index into an operand's own batch dims
      index_t lin = 0;
      for (std::size_t d = 0; d < bd.size(); ++d) lin = lin * bd[d] + (bd[d] == 1 ? 0 : idx[nb - bd.size() + d]);
      return lin;
    };
    const T* pa = a.data() + matrix_index(ba) * m * k;
    const T* pb = b.data() + matrix_index(bb) * k * n;
    double* pr = r.data() + z * m * n;
    for (index_t i = 0; i < m; ++i)
      for (index_t p = 0; p < k; ++p) {
        const double x = static_cast<double>(pa[i * k + p]);
        for (index_t j = 0; j < n; ++j) pr[i * n + j] += x * static_cast<double>(pb[p * n + j]);
      }
  }
  return r;
}

/// ||got - ref||_F / ||ref||_F (NaN if any element of got is NaN; the absolute
/// error when ref is all zeros).
template <class T>
double rel_frobenius(const std::vector<T>& got, const std::vector<double>& ref) {
  REQUIRE(got.size() == ref.size());
  double num = 0, den = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double d = static_cast<double>(got[i]) - ref[i];
    num += d * d;
    den += ref[i] * ref[i];
  }
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

/// Relative Frobenius error allowed: FP32 and FP64 arithmetic, or tf32's
/// 10-bit inputs (the opt-in tf32 variant: about 7e-4 measured on the H100).
template <class T>
double tolerance(ufunc::matmul_variant v = ufunc::matmul_variant::fastest) {
  if (v == ufunc::matmul_variant::tf32) return 3e-3;
  return std::is_same_v<T, float> ? 1e-5 : 1e-12;
}

/// A(m,k) @ B(k,n) with `variant` on target Tg, checked against the reference.
template <class Tg, class T, class V>
void check_product(index_t m, index_t n, index_t k, V variant) {
  const auto seed = test::fresh_seed();
  INFO("variant " << ufunc::to_string(variant) << ", m n k = " << m << " " << n << " " << k << ", seed " << seed
                  << (std::is_same_v<T, float> ? ", float" : ", double") << ", target " << Tg::name);
  const auto ha = normal_vector<T>(static_cast<std::size_t>(m * k), seed);
  const auto hb = normal_vector<T>(static_cast<std::size_t>(k * n), seed + 1);
  const auto a = make<Tg>(ha, {m, k});
  const auto b = make<Tg>(hb, {k, n});
  dims_t od;
  const auto ref = ref_matmul(ha, {m, k}, hb, {k, n}, od);
  const auto c = ufunc::matmul(a, b, variant);  // a fresh (poisoned) result
  CHECK(test::dims_of(c.shape()) == od);
  const double err = rel_frobenius(c.to_host(), ref);
  INFO("relative Frobenius error " << err);
  CHECK(err <= tolerance<T>(variant));
}

template <class Tg, class T>
void check_edge_sizes(const std::vector<std::array<index_t, 3>>& sizes) {
  for (auto v : ufunc::matmul_variants<Tg, T>())
    for (const auto& s : sizes) check_product<Tg, T>(s[0], s[1], s[2], v);
}

// Sizes around every tile: 16 (tiled), 64 (optimized double), 128 (optimized
// float; and its k-tile of 8), primes, m != n != k, vectors.
const std::vector<std::array<index_t, 3>> edge_sizes = {
    {1, 1, 1},       {15, 15, 15},    {16, 16, 16},  {17, 17, 17},   {7, 13, 31},    {31, 7, 13},
    {63, 65, 64},    {64, 64, 8},     {65, 63, 9},   {127, 127, 7},  {128, 128, 128}, {129, 129, 129},
    {1, 97, 5},      {97, 1, 300},    {200, 3, 1},   {5, 300, 2},    {131, 257, 67}, {255, 130, 33},
    {2, 2, 0},       {3, 1, 0}};

}  // namespace

TEST_CASE("matmul: every variant at sizes around its tiles, primes and m != n != k") {
  check_edge_sizes<ufunc::target::device, float>(edge_sizes);
  check_edge_sizes<ufunc::target::device, double>(edge_sizes);
}

#if defined(UFUNC_BACKEND_CUDA)
namespace {
/// The optimized kernel with a forced split-k count (the dispatcher splits only
/// products with few tiles and long k), at every edge size.
template <class T>
void check_forced_splits() {
  for (const auto& s : edge_sizes)
    for (int splits : {2, 3, 7}) {
      const index_t m = s[0], n = s[1], k = s[2];
      const auto seed = test::fresh_seed();
      INFO("m n k = " << m << " " << n << " " << k << ", splits " << splits << ", seed " << seed);
      const auto ha = normal_vector<T>(static_cast<std::size_t>(m * k), seed);
      const auto hb = normal_vector<T>(static_cast<std::size_t>(k * n), seed + 1);
      const auto a = make<ufunc::target::device>(ha, {m, k});
      const auto b = make<ufunc::target::device>(hb, {k, n});
      auto c = ufunc::empty<T>(shape{m, n});
      dims_t od;
      const auto ref = ref_matmul(ha, {m, k}, hb, {k, n}, od);
      ufunc::detail::gemm_args<T> g;
      g.a = a.data(), g.b = b.data(), g.c = c.data(), g.m = m, g.n = n, g.k = k, g.lda = k, g.ldb = n, g.ldc = n;
      ufunc::detail::launch_matmul_optimized_splits(g, splits, {});
      CHECK(rel_frobenius(c.to_host(), ref) <= tolerance<T>());
    }
}
}  // namespace

TEST_CASE("matmul: optimized kernel with forced split-k at edge sizes") {
  check_forced_splits<float>();
  check_forced_splits<double>();
}
#endif

TEST_CASE("matmul: the host target in every build") {
  const std::vector<std::array<index_t, 3>> sizes = {{1, 1, 1}, {5, 3, 1}, {63, 65, 67}, {4, 257, 300}, {70, 2, 0}};
  check_edge_sizes<ufunc::target::host, float>(sizes);
  check_edge_sizes<ufunc::target::host, double>(sizes);
}

namespace {
/// The host target's product at 1, 2 and 16 threads, compared bit for bit: each
/// element of C is summed in the same order at every thread count (matmul.hpp:
/// panel after panel, p in order within a panel; no split of k across threads).
/// 300 x 500 x 700: two row tiles, two column tiles and two k panels.
template <class T>
void check_thread_counts() {
  using H = ufunc::target::host;
  const index_t m = 300, k = 500, n = 700;
  const auto seed = test::fresh_seed();
  const std::string type = std::is_same_v<T, float> ? "float" : "double";  // (a const char* prints as a pointer)
  INFO("seed " << seed << ", " << type);
  const auto a = make<H>(normal_vector<T>(static_cast<std::size_t>(m * k), seed), {m, k});
  const auto b = make<H>(normal_vector<T>(static_cast<std::size_t>(k * n), seed + 1), {k, n});
  const int before = omp_get_max_threads();
  std::vector<std::vector<T>> got;
  for (int threads : {1, 2, 16}) {
    omp_set_num_threads(threads);
    got.push_back(ufunc::matmul(a, b).to_host());
  }
  omp_set_num_threads(before);
  for (std::size_t r = 1; r < got.size(); ++r) {
    INFO("threads " << (r == 1 ? 2 : 16) << " against 1");
    REQUIRE(got[r].size() == got[0].size());
    CHECK(std::memcmp(got[0].data(), got[r].data(), sizeof(T) * got[0].size()) == 0);
  }
}
}  // namespace

TEST_CASE("matmul: the host target's result is the same bit for bit at 1, 2 and 16 threads") {
  check_thread_counts<float>();
  check_thread_counts<double>();
}

TEST_CASE("matmul large: every variant on a large product") {
  // Large enough for many tiles in both dims and, on CUDA, a non-split grid.
  const index_t m = ufunc::cuda_backend ? 1100 : 300, n = ufunc::cuda_backend ? 1000 : 260,
                k = ufunc::cuda_backend ? 1030 : 280;
  for (auto v : ufunc::matmul_variants<ufunc::target::device, float>()) check_product<ufunc::target::device, float>(m, n, k, v);
  for (auto v : ufunc::matmul_variants<ufunc::target::device, double>())
    check_product<ufunc::target::device, double>(m, n, k, v);
}

TEST_CASE("matmul large: float accuracy at k = 4096 (relative Frobenius error <= 1e-5; tf32 3e-3)") {
  // Small m, n keep the host reference cheap; on CUDA (256, 256) also runs the
  // optimized kernel's split-k path (4 tiles on a whole GPU).
  const index_t mn = ufunc::cuda_backend ? 256 : 16;
  for (auto v : ufunc::matmul_variants<ufunc::target::device>()) check_product<ufunc::target::device, float>(mn, mn + 8, 4096, v);
}

TEST_CASE("matmul: numpy.matmul's 1-D promotion and batch broadcasting") {
  using Tg = ufunc::target::device;
  struct row {
    dims_t a, b, out;
  };
  const std::vector<row> table = {
      {{5}, {5, 3}, {3}},                        // vector @ matrix: the promoted dim is removed
      {{4, 5}, {5}, {4}},                        // matrix @ vector
      {{6}, {6}, {}},                            // vector @ vector: a 0-d result
      {{2, 3, 4}, {4, 5}, {2, 3, 5}},            // stack @ matrix (folds into one tall product)
      {{3, 4}, {2, 4, 5}, {2, 3, 5}},            // matrix @ stack
      {{2, 1, 3, 4}, {5, 4, 6}, {2, 5, 3, 6}},   // batch dims broadcast (2,1) with (5,)
      {{2, 3, 4}, {4}, {2, 3}},                  // stack @ vector
      {{4}, {2, 4, 5}, {2, 5}},                  // vector @ stack
      {{1, 2, 1, 2, 3}, {3, 1, 2, 3, 2}, {3, 2, 2, 2, 2}},  // rank 5
      {{0, 3, 4}, {4, 5}, {0, 3, 5}},            // empty batch
      {{3, 0}, {0, 4}, {3, 4}},                  // k = 0: zeros
  };
  for (const auto& c : table) {
    const auto seed = test::fresh_seed();
    INFO("a " << test::dims_str(c.a) << " @ b " << test::dims_str(c.b) << ", seed " << seed);
    const auto ha = normal_vector<double>(static_cast<std::size_t>(test::count_of(c.a)), seed);
    const auto hb = normal_vector<double>(static_cast<std::size_t>(test::count_of(c.b)), seed + 1);
    dims_t od;
    const auto ref = ref_matmul(ha, c.a, hb, c.b, od);
    REQUIRE(od == c.out);
    for (auto v : ufunc::matmul_variants<Tg, double>()) {
      INFO("variant " << ufunc::to_string(v));
      const auto r = ufunc::matmul(make<Tg>(ha, c.a), make<Tg>(hb, c.b), v);
      CHECK(test::dims_of(r.shape()) == c.out);
      CHECK(rel_frobenius(r.to_host(), ref) <= 1e-12);
    }
  }
}

TEST_CASE("matmul: transposed, strided, broadcast and reversed views; out views") {
  using Tg = ufunc::target::device;
  const index_t m = 37, n = 45, k = 29;
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  // Logical operands A (m,k), B (k,n) held in several layouts.
  const auto ha = normal_vector<float>(static_cast<std::size_t>(m * k), seed);
  const auto hb = normal_vector<float>(static_cast<std::size_t>(k * n), seed + 1);
  dims_t od;
  const auto ref = ref_matmul(ha, {m, k}, hb, {k, n}, od);
  std::vector<float> hat(static_cast<std::size_t>(k * m)), hbt(static_cast<std::size_t>(n * k));
  for (index_t i = 0; i < m; ++i)
    for (index_t p = 0; p < k; ++p) hat[static_cast<std::size_t>(p * m + i)] = ha[static_cast<std::size_t>(i * k + p)];
  for (index_t p = 0; p < k; ++p)
    for (index_t j = 0; j < n; ++j) hbt[static_cast<std::size_t>(j * k + p)] = hb[static_cast<std::size_t>(p * n + j)];
  auto a = make<Tg>(ha, {m, k});
  auto b = make<Tg>(hb, {k, n});
  auto at = make<Tg>(hat, {k, m});  // A stored transposed
  auto bt = make<Tg>(hbt, {n, k});
  // A with every other column of a (m, 2k) buffer; B with rows reversed in memory.
  std::vector<float> hwide(static_cast<std::size_t>(m * 2 * k), std::numeric_limits<float>::quiet_NaN());
  for (index_t i = 0; i < m; ++i)
    for (index_t p = 0; p < k; ++p) hwide[static_cast<std::size_t>(i * 2 * k + 2 * p + 1)] = ha[static_cast<std::size_t>(i * k + p)];
  auto wide = make<Tg>(hwide, {m, 2 * k});
  std::vector<float> hrev(hb.size());
  for (index_t p = 0; p < k; ++p)
    for (index_t j = 0; j < n; ++j) hrev[static_cast<std::size_t>((k - 1 - p) * n + j)] = hb[static_cast<std::size_t>(p * n + j)];
  auto rev = make<Tg>(hrev, {k, n});
  const auto a_strided = wide.view().sliced(1, 1, 2 * k, 2);
  const auto b_reversed = rev.view().sliced(0, -1, -k - 1, -1);
  REQUIRE(a_strided.shape() == shape{m, k});
  REQUIRE(b_reversed.shape() == shape{k, n});

  for (auto v : ufunc::matmul_variants<Tg>()) {
    INFO("variant " << ufunc::to_string(v));
    CHECK(rel_frobenius(ufunc::matmul(at.view().transposed(), b, v).to_host(), ref) <= tolerance<float>(v));
    CHECK(rel_frobenius(ufunc::matmul(a, bt.view().transposed(), v).to_host(), ref) <= tolerance<float>(v));
    CHECK(rel_frobenius(ufunc::matmul(at.view().transposed(), bt.view().transposed(), v).to_host(), ref) <= tolerance<float>(v));
    CHECK(rel_frobenius(ufunc::matmul(a_strided, b_reversed, v).to_host(), ref) <= tolerance<float>(v));

    // out: a fresh array, a window of a larger one (row stride > n), and a
    // transposed view (column stride != 1: computed through a temporary).
    auto c = ufunc::full<float, Tg>(shape{m, n}, std::numeric_limits<float>::quiet_NaN());
    auto r = ufunc::matmul(a, b, ufunc::out(c), v);
    CHECK(r.data() == c.data());
    CHECK(rel_frobenius(c.to_host(), ref) <= tolerance<float>(v));
    auto big = ufunc::full<float, Tg>(shape{m + 3, n + 5}, -7.0f);
    auto window = big.view().sliced(0, 2, 2 + m).sliced(1, 1, 1 + n);
    ufunc::matmul(a, b, ufunc::out(window), v);
    const auto hbig = big.to_host();
    std::vector<float> got;
    std::size_t outside_changed = 0;
    for (index_t i = 0; i < m + 3; ++i)
      for (index_t j = 0; j < n + 5; ++j) {
        const float x = hbig[static_cast<std::size_t>(i * (n + 5) + j)];
        if (i >= 2 && i < 2 + m && j >= 1 && j < 1 + n)
          got.push_back(x);
        else
          outside_changed += x != -7.0f;
      }
    CHECK(outside_changed == 0);
    CHECK(rel_frobenius(got, ref) <= tolerance<float>(v));
    auto ct = ufunc::full<float, Tg>(shape{n, m}, std::numeric_limits<float>::quiet_NaN());
    ufunc::matmul(a, b, ufunc::out(ct.view().transposed()), v);
    const auto hct = ct.to_host();
    std::vector<float> back(static_cast<std::size_t>(m * n));
    for (index_t i = 0; i < m; ++i)
      for (index_t j = 0; j < n; ++j) back[static_cast<std::size_t>(i * n + j)] = hct[static_cast<std::size_t>(j * m + i)];
    CHECK(rel_frobenius(back, ref) <= tolerance<float>(v));
  }
  // A broadcast operand: every row of A the same (zero row stride).
  std::vector<float> one_row(ha.begin(), ha.begin() + k);
  auto row = make<Tg>(one_row, {k});
  const auto a_bcast = ufunc::make_view<Tg>(row.data(), shape{m, k}, {0, 1});
  std::vector<float> hrep;
  for (index_t i = 0; i < m; ++i) hrep.insert(hrep.end(), one_row.begin(), one_row.end());
  const auto ref_b = ref_matmul(hrep, {m, k}, hb, {k, n}, od);
  for (auto v : ufunc::matmul_variants<Tg>())
    CHECK(rel_frobenius(ufunc::matmul(a_bcast, b, v).to_host(), ref_b) <= tolerance<float>(v));
}

TEST_CASE("matmul: errors name the shapes and leave out untouched") {
  using Tg = ufunc::target::device;
  auto msg = [](auto&& fn) { return test::message_of<ufunc::shape_error>(fn); };
  auto a = ufunc::full<float, Tg>(shape{3, 4}, 1.0f);
  auto b = ufunc::full<float, Tg>(shape{5, 6}, 1.0f);
  const std::string inner = msg([&] { (void)ufunc::matmul(a, b); });
  INFO(inner);
  CHECK(inner.rfind("matmul: ", 0) == 0);
  CHECK(test::contains(inner, "(3,4)"));
  CHECK(test::contains(inner, "(5,6)"));
  auto s = ufunc::full<float, Tg>(shape{}, 1.0f);
  CHECK(test::contains(msg([&] { (void)ufunc::matmul(s, a); }), "at least one dimension"));
  auto x = ufunc::full<float, Tg>(shape{2, 3, 4}, 1.0f);
  auto y = ufunc::full<float, Tg>(shape{3, 4, 2}, 1.0f);
  const std::string batch = msg([&] { (void)ufunc::matmul(x, y); });
  CHECK(test::contains(batch, "(2,3,4)"));
  CHECK(test::contains(batch, "(3,4,2)"));

  auto sq = ufunc::full<float, Tg>(shape{4, 4}, 2.0f);
  auto c_bad = ufunc::full<float, Tg>(shape{4, 5}, -3.0f);
  CHECK(test::contains(msg([&] { ufunc::matmul(sq, sq, ufunc::out(c_bad)); }), "out has shape (4,5)"));
  // out may not alias an input, even exactly (the product is not elementwise).
  CHECK(test::contains(msg([&] { ufunc::matmul(sq, sq, ufunc::out(sq)); }), "overlaps input 0"));
  auto wide = ufunc::full<float, Tg>(shape{4, 8}, 2.0f);
  CHECK(test::contains(msg([&] { ufunc::matmul(sq, wide.view().sliced(1, 0, 4), ufunc::out(wide.view().sliced(1, 2, 6))); }),
                       "overlaps input 1"));
  const auto hsq = sq.to_host();
  CHECK(std::all_of(hsq.begin(), hsq.end(), [](float v) { return v == 2.0f; }));
  const auto hcb = c_bad.to_host();
  CHECK(std::all_of(hcb.begin(), hcb.end(), [](float v) { return v == -3.0f; }));
  // A variant the target does not have.
  const auto other = ufunc::cuda_backend ? ufunc::matmul_variant::blocked : ufunc::matmul_variant::naive;
  CHECK_THROWS_AS((void)ufunc::matmul(sq, sq, other), ufunc::value_error);
}
