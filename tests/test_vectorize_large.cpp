// ufunc::vectorize beyond 32-bit indexing: more than 2^31 elements through the
// flat kernel (64-bit index math) and the row-tiled and per-element N-d kernels
// (32-bit index math, in pieces), and a row of 2^31 - 1 elements (two pieces).
// CUDA backend only: the host backend has no 32/64-bit switch, and 2^31-element
// loops would dominate CI time.
#include "vectorize_support.hpp"

#include <cstdint>
#include <random>
#include <vector>

// ---------------------------------------------------------------------------
// Beyond 32-bit indexing (the CUDA backend's N-d launches run in pieces that fit
// 32-bit index math; the host backend has no such switch, and this much work
// would be slow there).

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

// Just below 2^31 elements a row is longer than one 32-bit launch takes
// (index32_limit): the row-tiled kernel runs it in two pieces and must not step
// past either's end; the out is followed by sentinels that must survive.
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

#if defined(UFUNC_BACKEND_CUDA)

namespace {
struct mix {  // uint8 arithmetic wraps: every output bit depends on the inputs
  UFUNC_HD std::uint8_t operator()(std::uint8_t a, std::uint8_t b) const {
    return static_cast<std::uint8_t>(a * 7u + b * 3u + 1u);
  }
};
std::uint8_t mix_ref(std::uint8_t a, std::uint8_t b) { return static_cast<std::uint8_t>(a * 7u + b * 3u + 1u); }

/// Positions to check: both ends, around every 2^31 boundary, and random ones.
std::vector<index_t> probe_positions(index_t n, std::uint64_t seed) {
  std::vector<index_t> p;
  for (index_t i = 0; i < 64 && i < n; ++i) p.push_back(i);
  for (index_t i = std::max<index_t>(0, n - 64); i < n; ++i) p.push_back(i);
  for (index_t b = index_t(1) << 31; b < n; b += index_t(1) << 31)
    for (index_t i = b - 64; i < b + 64 && i < n; ++i) p.push_back(i);
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<index_t> d(0, n - 1);
  for (int k = 0; k < 100000; ++k) p.push_back(d(rng));
  return p;
}
}  // namespace

TEST_CASE("large: per-element N-d path beyond 2^31 elements") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  auto f = ufunc::vectorize(mix{});
  // Inner dim 3 takes the per-element kernel (the cases above cover the flat and
  // row-tiled kernels beyond 2^31 elements).
  for (index_t inner : {index_t(3)}) {
    const index_t outer = ((index_t(1) << 31) + 4097) / inner + 1;
    INFO("shape (" << outer << "," << inner << ")");
    const auto hc = test::random_vector<int>(static_cast<std::size_t>(outer), seed, 0, 255);
    const auto hr = test::random_vector<int>(static_cast<std::size_t>(inner), seed + 1, 0, 255);
    std::vector<std::uint8_t> c(hc.begin(), hc.end()), r(hr.begin(), hr.end());
    auto col = ufunc::to_device(c, shape{outer, 1});
    auto row = ufunc::to_device(r, shape{inner});
    auto y = f(col, row);
    REQUIRE(y.shape() == shape{outer, inner});
    const auto hy = y.to_host();
    for (index_t i : probe_positions(outer * inner, seed)) {
      const index_t ii = i / inner, jj = i % inner;
      INFO("at (" << ii << "," << jj << ")");
      REQUIRE(hy[static_cast<std::size_t>(i)] ==
              mix_ref(c[static_cast<std::size_t>(ii)], r[static_cast<std::size_t>(jj)]));
    }
  }
}

// Layouts whose indices or offsets pass 32 bits run as pieces that fit them
// (layout.hpp's for_each_32bit_piece): a strided view whose offsets span 2^32,
// a reversed view and a misaligned contiguous one (the row kernel, not the
// flat one), each of more than 2^31 elements.
TEST_CASE("large: strided, reversed and misaligned views past 2^31 elements run in pieces") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const index_t n = (index_t(1) << 32) + 4101;
  std::vector<std::uint8_t> hx(static_cast<std::size_t>(n));
  const auto salt = static_cast<std::uint32_t>(seed);
  for (std::size_t i = 0; i < hx.size(); ++i) hx[i] = static_cast<std::uint8_t>(((i ^ salt) * 2654435761u) >> 24);
  const auto x = ufunc::to_device(hx);
  auto f = ufunc::vectorize(mix{});
  auto check = [&](const ufunc::array<std::uint8_t>& y, index_t count, auto a_at, auto b_at, const char* what) {
    INFO(what);
    REQUIRE(y.shape() == shape{count});
    const auto hy = y.to_host();
    for (index_t i : probe_positions(count, seed)) {
      INFO("at " << i);
      REQUIRE(hy[static_cast<std::size_t>(i)] ==
              mix_ref(hx[static_cast<std::size_t>(a_at(i))], hx[static_cast<std::size_t>(b_at(i))]));
    }
  };
  const auto xv = x.view();
  {  // stride 2 from element 1: offsets span 2^32
    const index_t count = (n - 1 + 1) / 2;
    check(f(xv.sliced(0, 1, n, 2), xv.sliced(0, 0, count)), count, [](index_t i) { return 1 + 2 * i; },
          [](index_t i) { return i; }, "x[1::2], x[:count]");
  }
  {  // reversed, with a contiguous operand
    check(f(xv.sliced(0, n - 1, -n - 1, -1), xv), n, [&](index_t i) { return n - 1 - i; }, [](index_t i) { return i; },
          "x[::-1], x");
  }
  {  // contiguous but misaligned by one element: no flat kernel
    check(f(xv.sliced(0, 1, n), xv.sliced(0, 0, n - 1)), n - 1, [](index_t i) { return i + 1; },
          [](index_t i) { return i; }, "x[1:], x[:-1]");
  }
}

#endif
