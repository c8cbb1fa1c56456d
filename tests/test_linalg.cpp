// matmul and transpose: every registered variant of the build's device target
// (CUDA: naive, tiled, optimized; host build: blocked) and the host target, at
// sizes around every tile size, primes, m != n != k and a large case, on fresh
// random data with outputs poisoned first (UFUNC_POISON_ALLOCATIONS, and
// explicit NaN fills for `out` buffers). Products are compared with a
// double-precision reference by relative Frobenius error; transposes exactly.
// Also numpy.matmul's 1-D and batch rules, strided and transposed views,
// `out` views, empty arrays and the errors.
#include "test_support.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

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

template <class T>
double tolerance() {
  return std::is_same_v<T, float> ? 1e-5 : 1e-12;
}

template <class Tg, class T>
ufunc::array<T, Tg> make(const std::vector<T>& h, const dims_t& d) {
  return ufunc::asarray<Tg>(h, test::shape_of(d));
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
  CHECK(err <= tolerance<T>());
}

template <class Tg, class T>
void check_edge_sizes(const std::vector<std::array<index_t, 3>>& sizes) {
  for (auto v : ufunc::matmul_variants<Tg>())
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

TEST_CASE("matmul large: every variant on a large product") {
  // Large enough for many tiles in both dims and, on CUDA, a non-split grid.
  const index_t m = ufunc::cuda_backend ? 1100 : 300, n = ufunc::cuda_backend ? 1000 : 260,
                k = ufunc::cuda_backend ? 1030 : 280;
  for (auto v : ufunc::matmul_variants<ufunc::target::device>()) {
    check_product<ufunc::target::device, float>(m, n, k, v);
    check_product<ufunc::target::device, double>(m, n, k, v);
  }
}

TEST_CASE("matmul large: float accuracy at k = 4096 (relative Frobenius error <= 1e-5)") {
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
    for (auto v : ufunc::matmul_variants<Tg>()) {
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
    CHECK(rel_frobenius(ufunc::matmul(at.view().transposed(), b, v).to_host(), ref) <= 1e-5);
    CHECK(rel_frobenius(ufunc::matmul(a, bt.view().transposed(), v).to_host(), ref) <= 1e-5);
    CHECK(rel_frobenius(ufunc::matmul(at.view().transposed(), bt.view().transposed(), v).to_host(), ref) <= 1e-5);
    CHECK(rel_frobenius(ufunc::matmul(a_strided, b_reversed, v).to_host(), ref) <= 1e-5);

    // out: a fresh array, a window of a larger one (row stride > n), and a
    // transposed view (column stride != 1: computed through a temporary).
    auto c = ufunc::full<float, Tg>(shape{m, n}, std::numeric_limits<float>::quiet_NaN());
    auto r = ufunc::matmul(a, b, ufunc::out(c), v);
    CHECK(r.data() == c.data());
    CHECK(rel_frobenius(c.to_host(), ref) <= 1e-5);
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
    CHECK(rel_frobenius(got, ref) <= 1e-5);
    auto ct = ufunc::full<float, Tg>(shape{n, m}, std::numeric_limits<float>::quiet_NaN());
    ufunc::matmul(a, b, ufunc::out(ct.view().transposed()), v);
    const auto hct = ct.to_host();
    std::vector<float> back(static_cast<std::size_t>(m * n));
    for (index_t i = 0; i < m; ++i)
      for (index_t j = 0; j < n; ++j) back[static_cast<std::size_t>(i * n + j)] = hct[static_cast<std::size_t>(j * m + i)];
    CHECK(rel_frobenius(back, ref) <= 1e-5);
  }
  // A broadcast operand: every row of A the same (zero row stride).
  std::vector<float> one_row(ha.begin(), ha.begin() + k);
  auto row = make<Tg>(one_row, {k});
  const auto a_bcast = ufunc::make_view<Tg>(row.data(), shape{m, k}, {0, 1});
  std::vector<float> hrep;
  for (index_t i = 0; i < m; ++i) hrep.insert(hrep.end(), one_row.begin(), one_row.end());
  const auto ref_b = ref_matmul(hrep, {m, k}, hb, {k, n}, od);
  for (auto v : ufunc::matmul_variants<Tg>())
    CHECK(rel_frobenius(ufunc::matmul(a_bcast, b, v).to_host(), ref_b) <= 1e-5);
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

// ---------------------------------------------------------------------------
// transpose

namespace {

struct alignas(16) q16 {  // a 16-byte element
  std::uint32_t w[4];
  bool operator==(const q16& o) const { return std::equal(w, w + 4, o.w); }
};
struct rgb32 {  // a 12-byte element (copied as three 4-byte words)
  float c[3];
  bool operator==(const rgb32& o) const { return std::memcmp(c, o.c, sizeof c) == 0; }
};

template <class T>
std::vector<T> random_elems(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(n);
  auto* bytes = reinterpret_cast<unsigned char*>(v.data());
  for (std::size_t i = 0; i < n * sizeof(T); ++i) bytes[i] = static_cast<unsigned char>(rng() >> 13);
  if constexpr (std::is_floating_point_v<T>)  // no NaNs: they would not compare equal
    for (auto& x : v)
      if (std::isnan(x)) x = 1;
  return v;
}

/// numpy.transpose on host data: result[idx] = x[idx permuted back].
template <class T>
std::vector<T> ref_transpose(const std::vector<T>& x, const dims_t& d, const std::vector<int>& axes) {
  dims_t od;
  for (int a : axes) od.push_back(d[static_cast<std::size_t>(a)]);
  const auto xs = test::row_major(d);
  std::vector<T> r(x.size());
  for (index_t i = 0; i < test::count_of(od); ++i) {
    const auto idx = test::unravel(i, od);
    index_t off = 0;
    for (std::size_t kk = 0; kk < axes.size(); ++kk) off += idx[kk] * xs[static_cast<std::size_t>(axes[kk])];
    r[static_cast<std::size_t>(i)] = x[static_cast<std::size_t>(off)];
  }
  return r;
}

template <class T>
bool all_equal(const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!(a[i] == b[i])) return false;
  return true;
}

template <class Tg, class T>
void check_transpose_2d(index_t rows, index_t cols) {
  const auto seed = test::fresh_seed();
  const auto hx = random_elems<T>(static_cast<std::size_t>(rows * cols), seed);
  const auto x = make<Tg>(hx, {rows, cols});
  const auto ref = ref_transpose(hx, {rows, cols}, {1, 0});
  for (auto v : ufunc::transpose_variants<Tg>()) {
    INFO("variant " << ufunc::to_string(v) << ", " << rows << " x " << cols << ", element size " << sizeof(T)
                    << ", seed " << seed);
    const auto y = ufunc::transpose(x, v);
    CHECK(y.shape() == shape{cols, rows});
    CHECK(all_equal(y.to_host(), ref));
  }
}

template <class Tg, class T>
void check_transpose_sizes() {
  const std::vector<std::array<index_t, 2>> sizes = {{1, 1},   {1, 100}, {100, 1}, {31, 33}, {32, 32},
                                                     {33, 31}, {63, 65}, {64, 64}, {65, 63}, {127, 129},
                                                     {3, 1000}, {257, 130}};
  for (const auto& s : sizes) check_transpose_2d<Tg, T>(s[0], s[1]);
}

}  // namespace

TEST_CASE("transpose: every variant and element size (1, 2, 4, 8, 16 and 12 bytes) at edge sizes") {
  using Tg = ufunc::target::device;
  check_transpose_sizes<Tg, std::uint8_t>();
  check_transpose_sizes<Tg, std::int16_t>();
  check_transpose_sizes<Tg, float>();
  check_transpose_sizes<Tg, double>();
  check_transpose_sizes<Tg, q16>();
  check_transpose_sizes<Tg, rgb32>();
}

TEST_CASE("transpose: the host target in every build") {
  check_transpose_2d<ufunc::target::host, float>(65, 63);
  check_transpose_2d<ufunc::target::host, std::uint8_t>(31, 100);
  check_transpose_2d<ufunc::target::host, q16>(7, 40);
}

TEST_CASE("transpose large: ragged 8191 x 8193 (CUDA) or 1000 x 999 (host)") {
  const index_t r = ufunc::cuda_backend ? 8191 : 1000, c = ufunc::cuda_backend ? 8193 : 999;
  check_transpose_2d<ufunc::target::device, float>(r, c);
  check_transpose_2d<ufunc::target::device, std::uint16_t>(ufunc::cuda_backend ? 2047 : 300, ufunc::cuda_backend ? 3001 : 301);
}

TEST_CASE("transpose: N-d permutations, negative axes, views and out") {
  using Tg = ufunc::target::device;
  const dims_t d = {3, 4, 5};
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const auto hx = random_elems<float>(60, seed);
  auto x = make<Tg>(hx, d);
  std::vector<int> axes = {0, 1, 2};
  do {
    INFO("axes " << axes[0] << axes[1] << axes[2]);
    const auto ref = ref_transpose(hx, d, axes);
    for (auto v : ufunc::transpose_variants<Tg>()) {
      INFO("variant " << ufunc::to_string(v));
      const auto y = ufunc::transpose(x, axes, v);
      CHECK(all_equal(y.to_host(), ref));
    }
  } while (std::next_permutation(axes.begin(), axes.end()));
  // The example, negative axes, and the default (reversed) order.
  CHECK(all_equal(ufunc::transpose(x, {1, 0, 2}).to_host(), ref_transpose(hx, d, {1, 0, 2})));
  CHECK(all_equal(ufunc::transpose(x, {-1, 0, -2}).to_host(), ref_transpose(hx, d, {2, 0, 1})));
  const auto rev = ufunc::transpose(x);
  CHECK(rev.shape() == shape{5, 4, 3});
  CHECK(all_equal(rev.to_host(), ref_transpose(hx, d, {2, 1, 0})));
  // 4-d with batch dims on both sides of the swapped pair.
  const dims_t d4 = {2, 3, 4, 5};
  const auto h4 = random_elems<double>(120, seed + 1);
  auto x4 = make<Tg>(h4, d4);
  for (const std::vector<int>& ax : {std::vector<int>{3, 1, 2, 0}, {0, 3, 2, 1}, {1, 0, 3, 2}, {2, 3, 0, 1}})
    for (auto v : ufunc::transpose_variants<Tg>()) CHECK(all_equal(ufunc::transpose(x4, ax, v).to_host(), ref_transpose(h4, d4, ax)));
  // Ranks 0 and 1: copies.
  auto s = ufunc::full<float, Tg>(shape{}, 2.5f);
  CHECK(ufunc::transpose(s).to_host() == std::vector<float>{2.5f});
  auto line = make<Tg>(std::vector<float>{1, 2, 3}, {3});
  CHECK(ufunc::transpose(line).to_host() == std::vector<float>{1, 2, 3});

  // Views as input: a column slice with a step (no dims swapped: the strided
  // row copy), its transpose, and a reversed view.
  const auto hw = random_elems<float>(12 * 10, seed + 2);
  auto w = make<Tg>(hw, {12, 10});
  const auto cols = w.view().sliced(1, 1, 10, 3);  // (12, 3)
  std::vector<float> hcols;
  for (index_t i = 0; i < 12; ++i)
    for (index_t j = 1; j < 10; j += 3) hcols.push_back(hw[static_cast<std::size_t>(i * 10 + j)]);
  for (auto v : ufunc::transpose_variants<Tg>()) {
    CHECK(all_equal(ufunc::transpose(cols, {0, 1}, v).to_host(), hcols));
    CHECK(all_equal(ufunc::transpose(cols, v).to_host(), ref_transpose(hcols, {12, 3}, {1, 0})));
    const auto flipped = w.view().sliced(0, -1, -13, -1);
    std::vector<float> hflip;
    for (index_t i = 11; i >= 0; --i)
      for (index_t j = 0; j < 10; ++j) hflip.push_back(hw[static_cast<std::size_t>(i * 10 + j)]);
    CHECK(all_equal(ufunc::transpose(flipped, v).to_host(), ref_transpose(hflip, {12, 10}, {1, 0})));
  }

  // out: an array, and a strided window of a larger one.
  auto y = ufunc::full<float, Tg>(shape{10, 12}, std::numeric_limits<float>::quiet_NaN());
  auto r = ufunc::transpose(w, ufunc::out(y));
  CHECK(r.data() == y.data());
  CHECK(all_equal(y.to_host(), ref_transpose(hw, {12, 10}, {1, 0})));
  auto big = ufunc::full<float, Tg>(shape{10, 30}, -1.0f);
  ufunc::transpose(w, ufunc::out(big.view().sliced(1, 0, 24, 2)));
  const auto hbig = big.to_host();
  const auto ref_t = ref_transpose(hw, {12, 10}, {1, 0});
  std::size_t bad = 0;
  for (index_t i = 0; i < 10; ++i)
    for (index_t j = 0; j < 30; ++j) {
      const float got = hbig[static_cast<std::size_t>(i * 30 + j)];
      const float want = (j < 24 && j % 2 == 0) ? ref_t[static_cast<std::size_t>(i * 12 + j / 2)] : -1.0f;
      bad += !(got == want);
    }
  CHECK(bad == 0);
}

TEST_CASE("transpose: errors") {
  using Tg = ufunc::target::device;
  auto x = ufunc::full<float, Tg>(shape{2, 3, 4}, 1.0f);
  auto msg = [](auto&& fn) { return test::message_of<ufunc::shape_error>(fn); };
  for (const std::vector<int>& bad : {std::vector<int>{0, 1}, {0, 1, 1}, {0, 1, 3}, {0, 1, -4}, {0, 1, 2, 3}}) {
    const std::string m = msg([&] { (void)ufunc::transpose(x, bad); });
    INFO(m);
    CHECK(m.rfind("transpose: axes (", 0) == 0);
    CHECK(test::contains(m, "(2,3,4)"));
  }
  auto y = ufunc::full<float, Tg>(shape{4, 3, 3}, 5.0f);
  CHECK(test::contains(msg([&] { ufunc::transpose(x, ufunc::out(y)); }), "out has shape (4,3,3)"));
  auto sq = ufunc::full<float, Tg>(shape{8, 8}, 5.0f);
  CHECK(test::contains(msg([&] { ufunc::transpose(sq, ufunc::out(sq)); }), "overlaps input 0"));
  const auto hy = y.to_host();
  CHECK(std::all_of(hy.begin(), hy.end(), [](float v) { return v == 5.0f; }));
  const auto other = ufunc::cuda_backend ? ufunc::transpose_variant::blocked : ufunc::transpose_variant::tiled;
  CHECK_THROWS_AS((void)ufunc::transpose(sq, other), ufunc::value_error);
}
