// More than 2^31 elements through the per-element N-d kernel (64-bit index
// math with plain division). CUDA backend only: the host backend has no 32/64-bit
// switch, and 2^31-element loops would dominate CI time.
#include "test_support.hpp"

#if defined(UFUNC_BACKEND_CUDA)

#include <cstdint>
#include <random>

using ufunc::index_t;
using ufunc::shape;

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
  // Inner dim 3 takes the per-element kernel (test_vectorize.cpp covers the flat and
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

#endif
