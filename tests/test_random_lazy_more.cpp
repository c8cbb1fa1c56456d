// ufunc::random's lazy leaves (issue 41), more reductions: integer leaves
// (exact sums on every path), two inputs (a dot product's layout), the pairwise
// layouts (x_i against a leaf's y_j and the reverse), double and 16-bit leaves,
// each against the same reduction of the array the same arguments make.
#include "half_support.hpp"
#include "random_lazy_support.hpp"

#include <cmath>
#include <cstdint>
#include <vector>

namespace lazy_random_test {

/// Integer, two-input, pairwise, double and 16-bit reductions of leaves.
template <class Tg>
void check_more_reductions(std::uint64_t seed) {
  CAPTURE(seed);
  using ufunc::lazy;
  constexpr bool on_host = std::is_same_v<Tg, host>;
  const double eps = std::ldexp(1.0, -24);
  // Integer sums are exact on every path: the leaf's equal the array's everywhere.
  {
    const shape s{301, 129};
    const auto k = ufunc::random::integers<std::int64_t, Tg>(s, seed, -1000, 1000);
    const auto kl = ufunc::random::lazy_integers<std::int64_t, Tg>(s, seed, -1000, 1000);
    CHECK(std::int64_t(ufunc::sum(kl)) == std::int64_t(ufunc::sum(k)));
    CHECK(bits_differ(ufunc::sum(kl, ufunc::axis(0)).to_host(), ufunc::sum(k, ufunc::axis(0)).to_host()) == 0);
    CHECK(bits_differ(ufunc::sum(kl, ufunc::axis(1)).to_host(), ufunc::sum(k, ufunc::axis(1)).to_host()) == 0);
    CHECK(bits_differ(ufunc::sum(kl * kl + 1, ufunc::axis(1)).to_host(),
                      ufunc::sum(lazy(k) * lazy(k) + 1, ufunc::axis(1)).to_host()) == 0);
  }
  // Two inputs (a dot product's layout: the host reads both through unit
  // readers), and the pairwise layouts x_i against a leaf's y_j (and the
  // reverse): the same engine, so the same bits, on every target.
  {
    const shape s{257, 300};
    const auto x = ufunc::random::uniform<float, Tg>(s, seed + 1);
    const auto z = ufunc::random::normal<float, Tg>(s, seed);
    const auto zl = ufunc::random::lazy_normal<float>(s, seed);
    const auto dot = ufunc::map_reduce(mul_fn{}, ufunc::plus{});
    for (int ax = 0; ax < 2; ++ax) {
      CAPTURE(ax);
      const auto a = dot(x, zl, ufunc::axis(ax)).to_host(), b = dot(x, z, ufunc::axis(ax)).to_host();
      if constexpr (on_host) {
        CHECK(bits_differ(a, b) == 0);
      } else {  // the engines may read the array and the leaf with other vector widths: the bound
        int bad = 0;
        const double len = double(s[ax]);
        for (std::size_t i = 0; i < a.size(); ++i) bad += !(std::fabs(a[i] - b[i]) <= 2 * sum_bound(len, 3 * len, eps));
        CHECK(bad == 0);
      }
    }
    const float whole = dot(x, zl), whole_a = dot(x, z);
    if constexpr (on_host) CHECK(whole == whole_a);
    CHECK(std::fabs(whole - whole_a) <= 2 * sum_bound(double(s.count()), 3.0 * double(s.count()), eps));
    const auto xc = ufunc::random::uniform<float, Tg>(shape{100, 1}, seed + 2);
    const auto yr = ufunc::random::normal<float, Tg>(shape{1, 300}, seed);
    const auto yl = ufunc::random::lazy_normal<float>(shape{1, 300}, seed);
    CHECK(bits_differ(dot(xc, yl, ufunc::axis(1)).to_host(), dot(xc, yr, ufunc::axis(1)).to_host()) == 0);
    const auto xr = ufunc::random::uniform<float, Tg>(shape{1, 300}, seed + 3);
    const auto yc = ufunc::random::normal<float, Tg>(shape{100, 1}, seed);
    const auto ycl = ufunc::random::lazy_normal<float>(shape{100, 1}, seed);
    CHECK(bits_differ(dot(ycl, xr, ufunc::axis(1)).to_host(), dot(yc, xr, ufunc::axis(1)).to_host()) == 0);
    CHECK(bits_differ(dot(ycl, xr, ufunc::axis(0)).to_host(), dot(yc, xr, ufunc::axis(0)).to_host()) == 0);
  }
  // Double and 16-bit leaves reduce as their arrays do (the host: exactly).
  {
    const shape s{1001, 7};
    const auto d = ufunc::random::normal<double, Tg>(s, seed);
    const auto dl = ufunc::random::lazy_normal<double, Tg>(s, seed);
    const auto dh = d.to_host();
    double ref = 0, abs_sum = 0;
    for (double v : dh) ref += v, abs_sum += std::fabs(v);
    const double ds = ufunc::sum(dl);
    CHECK(std::fabs(ds - ref) <= sum_bound(double(dh.size()), abs_sum, std::ldexp(1.0, -53)));
    if constexpr (on_host) CHECK(ds == double(ufunc::sum(lazy(d))));
    const auto h = ufunc::random::uniform<__half, Tg>(s, seed, __float2half(-1.f), __float2half(3.f));
    const auto hl = ufunc::random::lazy_uniform<__half, Tg>(s, seed, __float2half(-1.f), __float2half(3.f));
    CHECK(bits_differ(ufunc::max(hl, ufunc::axis(0)).to_host(), ufunc::max(h, ufunc::axis(0)).to_host()) == 0);
    {  // Whole (the device's made kernel: eight halves from two blocks a slot), against a host loop.
      const auto hh = h.to_host();
      std::size_t amx = 0;
      double hs = 0, ha = 0;
      for (std::size_t i = 0; i < hh.size(); ++i) {
        const float v = half_test::widen_v(hh[i]);
        if (v > half_test::widen_v(hh[amx])) amx = i;
        hs += v, ha += std::fabs(v);
      }
      CHECK(index_t(ufunc::argmax(hl)) == index_t(amx));
      CHECK(half_test::widen_v(__half(ufunc::max(hl))) == half_test::widen_v(hh[amx]));
      const auto whole_h = ufunc::sum(hl);  // float: 16-bit sums accumulate and return float
      static_assert(std::is_same_v<decltype(whole_h), const float>);
      CHECK(std::fabs(double(whole_h) - hs) <= sum_bound(double(hh.size()), ha, eps));
    }
    if constexpr (on_host)
      CHECK(bits_differ(ufunc::sum(hl, ufunc::axis(1)).to_host(), ufunc::sum(lazy(h), ufunc::axis(1)).to_host()) == 0);
  }
}

}  // namespace lazy_random_test

using namespace lazy_random_test;

TEST_CASE("random lazy: integer, two-input, pairwise, double and 16-bit reductions of leaves") {
  const auto seed = test::fresh_seed();
  check_more_reductions<host>(seed);
#if defined(UFUNC_BACKEND_CUDA)
  check_more_reductions<ufunc::target::device>(seed + 100);
#endif
}
