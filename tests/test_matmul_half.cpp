// matmul of 16-bit floats (__half, __nv_bfloat16; issue 17): every variant the
// target lists for the type (CUDA: naive with float accumulation, tensor_core
// through each of its kernels — wgmma, mma.sync, naive — forced in turn by the
// test-only path switch; host: blocked float loops), fresh random inputs, a
// float64 reference of the rounded inputs. Per element the error is bounded by
// one rounding to the 16-bit type plus float accumulation over k terms:
// |c - ref| <= u16 |ref| + 2 k u32 sum_p |a_ip b_pj| (+ a tiny absolute term).
// Shapes: ragged around every tile (16, 64, 128, 256), k not a multiple of 8 or
// 64, one-element, empty k, batches that broadcast, a transposed operand, an
// `out` view, split-k (few tiles, long k), NaN and inf propagation.
#include "test_support.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

using test::make;
using ufunc::index_t;

namespace {

template <class T>
const char* name16() {
  return std::is_same_v<T, __half> ? "half" : "bfloat16";
}
/// Unit roundoff of T's rounding to nearest.
template <class T>
double unit16() {
  return std::is_same_v<T, __half> ? std::ldexp(1.0, -11) : std::ldexp(1.0, -8);
}

template <class T>
std::vector<T> random16(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> d(-2.f, 2.f);
  std::vector<T> v(n);
  for (auto& x : v) x = T(d(rng));
  return v;
}

/// Checks C = A @ B for row-major host copies (batch entries contiguous; A's or
/// B's batch count 1 broadcasts) against float64 sums of the rounded inputs.
template <class T>
void check_close(const std::vector<T>& c, const std::vector<T>& a, const std::vector<T>& b, index_t batch,
                 index_t ba, index_t bb, index_t m, index_t n, index_t k, const std::string& what) {
  INFO(what);
  REQUIRE(c.size() == static_cast<std::size_t>(batch * m * n));
  const double u32 = std::ldexp(1.0, -24);
  std::size_t bad = 0;
  for (index_t z = 0; z < batch; ++z)
    for (index_t i = 0; i < m; ++i)
      for (index_t j = 0; j < n; ++j) {
        double ref = 0, mag = 0;
        for (index_t p = 0; p < k; ++p) {
          const double x = static_cast<float>(a[static_cast<std::size_t>((ba == 1 ? 0 : z) * m * k + i * k + p)]);
          const double y = static_cast<float>(b[static_cast<std::size_t>((bb == 1 ? 0 : z) * k * n + p * n + j)]);
          ref += x * y;
          mag += std::fabs(x * y);
        }
        const double got = static_cast<float>(c[static_cast<std::size_t>(z * m * n + i * n + j)]);
        const double bound = unit16<T>() * std::fabs(ref) + 2.0 * static_cast<double>(k) * u32 * mag + 1e-30;
        if (!(std::fabs(got - ref) <= bound) && bad++ < 5)
          FAIL_CHECK("C[" << z << "," << i << "," << j << "] = " << got << ", reference " << ref << ", bound "
                          << bound);
      }
  CHECK(bad == 0);
}

template <class Tg, class T>
void check_shape(index_t batch, index_t ba, index_t bb, index_t m, index_t n, index_t k, ufunc::matmul_variant v,
                 const std::string& path) {
  const auto seed = test::fresh_seed();
  const std::string what = std::string(name16<T>()) + " target " + Tg::name + " variant " + ufunc::to_string(v) +
                           path + " batch " + std::to_string(batch) + " (" + std::to_string(ba) + "," +
                           std::to_string(bb) + ") m n k " + std::to_string(m) + " " + std::to_string(n) + " " +
                           std::to_string(k) + " seed " + std::to_string(seed);
  const auto ha = random16<T>(static_cast<std::size_t>(ba * m * k), seed);
  const auto hb = random16<T>(static_cast<std::size_t>(bb * k * n), seed + 1);
  auto dims = [&](index_t nb, index_t r, index_t c) {
    return batch > 1 ? std::vector<index_t>{nb, r, c} : std::vector<index_t>{r, c};
  };
  const auto a = make<Tg>(ha, dims(ba, m, k));
  const auto b = make<Tg>(hb, dims(bb, k, n));
  const auto c = ufunc::matmul(a, b, v);
  check_close(c.to_host(), ha, hb, batch, ba, bb, m, n, k, what);
}

// Sizes around the tiles of every kernel (naive 16, mma 128x256x32, wgmma
// 128x256x64), k ragged against 8 and 64, vectors, and k = 0.
const std::vector<std::array<index_t, 3>> sizes16 = {
    {1, 1, 1},     {1, 8, 8},       {17, 24, 40},    {7, 13, 31},     {128, 256, 32},
    {129, 264, 72}, {200, 272, 100}, {65, 8, 1000},  {256, 512, 64},  {3, 2, 0}};

template <class Tg, class T>
void check_all_sizes(ufunc::matmul_variant v, const std::string& path) {
  for (const auto& s : sizes16) check_shape<Tg, T>(1, 1, 1, s[0], s[1], s[2], v, path);
  check_shape<Tg, T>(3, 3, 1, 40, 72, 48, v, path);   // B broadcast over the batch
  check_shape<Tg, T>(2, 1, 2, 33, 256, 64, v, path);  // A broadcast
  check_shape<Tg, T>(1, 1, 1, 64, 64, 8192, v, path); // few tiles, long k: split-k
}

template <class Tg, class T>
void check_variants() {
  for (auto v : ufunc::matmul_variants<Tg, T>()) {
#if defined(UFUNC_BACKEND_CUDA)
    if (v == ufunc::matmul_variant::tensor_core) {
      auto& path = ufunc::detail::testing::tensor_core_path();
      const char* names[] = {" (auto: wgmma on Hopper)", " (mma.sync)", " (naive)"};
      for (int p = 0; p < 3; ++p) {
        path.store(p);
        check_all_sizes<Tg, T>(v, names[p]);
      }
      path.store(0);
      continue;
    }
#endif
    check_all_sizes<Tg, T>(v, "");
  }
}

}  // namespace

TEST_CASE("matmul 16-bit: every variant, ragged sizes, batches, split-k, against float64 of the rounded inputs") {
  test::for_each_target([](auto tg) {
    using Tg = decltype(tg);
    check_variants<Tg, __half>();
    check_variants<Tg, __nv_bfloat16>();
  });
}

TEST_CASE("matmul 16-bit: transposed operand, out view, NaN and inf, errors") {
  test::for_each_target([](auto tg) {
    using Tg = decltype(tg);
    using T = __nv_bfloat16;
    const index_t m = 70, n = 136, k = 96;
    const auto seed = test::fresh_seed();
    const auto ha = random16<T>(static_cast<std::size_t>(m * k), seed);
    const auto hbt = random16<T>(static_cast<std::size_t>(n * k), seed + 1);  // B^T, (n, k)
    std::vector<T> hb(static_cast<std::size_t>(k * n));
    for (index_t p = 0; p < k; ++p)
      for (index_t j = 0; j < n; ++j) hb[static_cast<std::size_t>(p * n + j)] = hbt[static_cast<std::size_t>(j * k + p)];
    const auto a = make<Tg>(ha, {m, k});
    const auto bt = make<Tg>(hbt, {n, k});
    // A transposed view as B (copied to a contiguous temporary first), into an out array.
    auto c = ufunc::empty<T, Tg>(ufunc::shape{m, n});
    ufunc::matmul(a, bt.view().transposed(), ufunc::out(c));
    check_close(c.to_host(), ha, hb, 1, 1, 1, m, n, k, std::string("transposed B, out, target ") + Tg::name);

    // NaN in A's row 3 reaches row 3 of C only; inf times nonzero stays inf.
    auto hn = ha;
    hn[static_cast<std::size_t>(3 * k + 5)] = T(std::nanf(""));
    for (index_t p = 0; p < k; ++p) hn[static_cast<std::size_t>(10 * k + p)] = T(0.f);
    hn[static_cast<std::size_t>(10 * k + 7)] = T(INFINITY);
    std::vector<T> hpos(static_cast<std::size_t>(k * n), T(1.f));
    const auto rn = ufunc::matmul(make<Tg>(hn, {m, k}), make<Tg>(hpos, {k, n})).to_host();
    for (index_t j = 0; j < n; ++j) {
      CHECK(std::isnan(static_cast<float>(rn[static_cast<std::size_t>(3 * n + j)])));
      CHECK(static_cast<float>(rn[static_cast<std::size_t>(10 * n + j)]) == INFINITY);
      CHECK(std::isfinite(static_cast<float>(rn[static_cast<std::size_t>(4 * n + j)])));
    }
    // A variant that the type does not have is a value_error before any work.
    if constexpr (!std::is_same_v<Tg, ufunc::target::host>)
      CHECK_THROWS_AS(ufunc::matmul(a, make<Tg>(hb, {k, n}), ufunc::matmul_variant::optimized), ufunc::value_error);
    CHECK_THROWS_AS(ufunc::matmul(a, a), ufunc::shape_error);
  });
}
