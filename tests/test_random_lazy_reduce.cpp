// ufunc::random's lazy leaves (issue 41) in reductions: every reduction of a
// leaf (whole, over each axis and several, keepdims, out(...), mean, min, max,
// argmin, argmax, map_reduce, two inputs, the pairwise layouts, integer, double
// and 16-bit leaves) against the same reduction of the array the same arguments
// make: exact wherever both take the same order (the host's sums of a leaf and
// of its array as an expression's leaf; min, max, argmin, argmax and integer
// sums on every target), within the documented float bound of a double loop
// otherwise; no array of draws allocated (a recording memory resource); and,
// in CUDA builds, leaves in streamed calls drawing their chunks' elements.
#include "random_lazy_support.hpp"

#include <ufunc/memory_resource.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <vector>

namespace lazy_random_test {

/// Reductions of leaves against the same reductions of the arrays: exact where
/// the order is the same (the host, whose sums take one order for a leaf and for
/// the array as an expression's leaf; min, max, argmin, argmax and integer sums
/// everywhere), within the bound of a double loop otherwise.
template <class Tg>
void check_reductions(std::uint64_t seed) {
  CAPTURE(seed);
  using ufunc::lazy;
  constexpr bool on_host = std::is_same_v<Tg, host>;
  const double eps = std::ldexp(1.0, -24);
  for (const shape& s : {shape{100003}, shape{37, 13}, shape{5, 1023}, shape{300, 257}, shape{4, 3, 77}}) {
    CAPTURE(s.str());
    const auto z = ufunc::random::normal<float, Tg>(s, seed, 1.f, 2.f);
    const auto zh = z.to_host();
    const auto zl = ufunc::random::lazy_normal<float, Tg>(s, seed, 1.f, 2.f);
    // Whole.
    double ref = 0, abs_sum = 0;
    for (float v : zh) ref += v, abs_sum += std::fabs(v);
    const float whole = ufunc::sum(zl);
    CHECK(std::fabs(whole - ref) <= sum_bound(double(zh.size()), abs_sum, eps));
    if constexpr (on_host) CHECK(whole == ufunc::sum(lazy(z)));
    const float scaled = ufunc::sum(zl * 10.0f);
    if constexpr (on_host) CHECK(scaled == ufunc::sum(lazy(z) * 10.0f));
    CHECK(std::fabs(scaled - 10 * ref) <= sum_bound(double(zh.size()), 10 * abs_sum, eps) + 10 * abs_sum * eps);
    const float mean = ufunc::mean(zl);
    CHECK(std::fabs(mean - ref / double(zh.size())) <= sum_bound(double(zh.size()), abs_sum, eps) / double(zh.size()) + 1e-6);
    if constexpr (on_host) CHECK(mean == ufunc::mean(lazy(z)));
    CHECK(float(ufunc::min(zl)) == float(ufunc::min(z)));
    CHECK(float(ufunc::max(zl)) == float(ufunc::max(z)));
    CHECK(index_t(ufunc::argmin(zl)) == index_t(ufunc::argmin(z)));
    CHECK(index_t(ufunc::argmax(zl)) == index_t(ufunc::argmax(z)));
    const float sq = ufunc::map_reduce(square_fn{}, ufunc::plus{})(zl);
    if constexpr (on_host) CHECK(sq == ufunc::map_reduce(square_fn{}, ufunc::plus{})(z));
    // Each axis, with and without keepdims, into out(...) too; the axis' sums
    // against a double loop over the array.
    for (int ax = 0; ax < s.size(); ++ax) {
      CAPTURE(ax);
      const auto r = ufunc::sum(zl, ufunc::axis(ax));
      const auto rk = ufunc::sum(zl, ufunc::axis(ax), ufunc::keepdims);
      CHECK(r.shape() == ufunc::sum(z, ufunc::axis(ax)).shape());
      CHECK(rk.shape() == ufunc::sum(z, ufunc::axis(ax), ufunc::keepdims).shape());
      const auto rh = r.to_host();
      CHECK(bits_differ(rh, rk.to_host()) == 0);
      if constexpr (on_host) CHECK(bits_differ(rh, ufunc::sum(lazy(z), ufunc::axis(ax)).to_host()) == 0);
      // The double reference: element (outer, inner) of the result sums over the axis.
      index_t outer = 1, inner = 1;
      for (int d = 0; d < ax; ++d) outer *= s[d];
      for (int d = ax + 1; d < s.size(); ++d) inner *= s[d];
      const index_t len = s[ax];
      int bad = 0;
      for (index_t o = 0; o < outer; ++o)
        for (index_t i = 0; i < inner; ++i) {
          double rs = 0, ra = 0;
          for (index_t k = 0; k < len; ++k) {
            const float v = zh[static_cast<std::size_t>((o * len + k) * inner + i)];
            rs += v, ra += std::fabs(v);
          }
          bad += !(std::fabs(rh[static_cast<std::size_t>(o * inner + i)] - rs) <= sum_bound(double(len), ra, eps));
        }
      CHECK(bad == 0);
      auto o = ufunc::empty<float, Tg>(r.shape());
      ufunc::sum(zl, ufunc::axis(ax), ufunc::out(o));
      CHECK(bits_differ(o.to_host(), rh) == 0);
      CHECK(bits_differ(ufunc::max(zl, ufunc::axis(ax)).to_host(), ufunc::max(z, ufunc::axis(ax)).to_host()) == 0);
      CHECK(bits_differ(ufunc::min(zl, ufunc::axis(ax)).to_host(), ufunc::min(z, ufunc::axis(ax)).to_host()) == 0);
      CHECK(bits_differ(ufunc::argmax(zl, ufunc::axis(ax)).to_host(), ufunc::argmax(z, ufunc::axis(ax)).to_host()) == 0);
      CHECK(bits_differ(ufunc::argmin(zl, ufunc::axis(ax)).to_host(), ufunc::argmin(z, ufunc::axis(ax)).to_host()) == 0);
      if constexpr (on_host) {
        CHECK(bits_differ(ufunc::mean(zl, ufunc::axis(ax)).to_host(), ufunc::mean(lazy(z), ufunc::axis(ax)).to_host()) == 0);
        CHECK(bits_differ(ufunc::map_reduce(square_fn{}, ufunc::plus{})(zl, ufunc::axis(ax)).to_host(),
                          ufunc::map_reduce(square_fn{}, ufunc::plus{})(z, ufunc::axis(ax)).to_host()) == 0);
      }
    }
    if (s.size() >= 2) {  // several axes at once
      const auto r = ufunc::sum(zl, ufunc::axes{0, s.size() - 1}, ufunc::keepdims).to_host();
      const auto ra = ufunc::sum(z, ufunc::axes{0, s.size() - 1}, ufunc::keepdims).to_host();
      CHECK(r.size() == ra.size());
      int bad = 0;
      for (std::size_t i = 0; i < r.size(); ++i) bad += !(std::fabs(r[i] - ra[i]) <= 1e-3 * (1 + std::fabs(ra[i])));
      CHECK(bad == 0);
      if constexpr (on_host)
        CHECK(bits_differ(r, ufunc::sum(lazy(z), ufunc::axes{0, s.size() - 1}, ufunc::keepdims).to_host()) == 0);
    }
  }
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
    if constexpr (on_host)
      CHECK(bits_differ(ufunc::sum(hl, ufunc::axis(1)).to_host(), ufunc::sum(lazy(h), ufunc::axis(1)).to_host()) == 0);
  }
}

/// A device (or host) memory resource that records every allocation's size.
struct recording_resource {
  std::mutex m;
  std::vector<std::size_t> sizes;
  void* take(std::size_t bytes, void* stream) {
    void* p = nullptr;
#if defined(UFUNC_BACKEND_CUDA)
    REQUIRE(cudaMallocAsync(&p, bytes, static_cast<cudaStream_t>(stream)) == cudaSuccess);
#else
    (void)stream;
    p = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
    REQUIRE(p != nullptr);
#endif
    std::lock_guard<std::mutex> lock(m);
    sizes.push_back(bytes);
    return p;
  }
  void give(void* p, void* stream) {
#if defined(UFUNC_BACKEND_CUDA)
    (void)cudaFreeAsync(p, static_cast<cudaStream_t>(stream));
#else
    (void)stream;
    std::free(p);
#endif
  }
  void* allocate(std::size_t bytes, std::size_t) { return take(bytes, nullptr); }
  void deallocate(void* p, std::size_t, std::size_t) { give(p, nullptr); }
#if defined(UFUNC_BACKEND_CUDA)
  void* allocate_async(std::size_t bytes, std::size_t, cuda::stream_ref s) { return take(bytes, s.get()); }
  void deallocate_async(void* p, std::size_t, std::size_t, cuda::stream_ref s) { give(p, s.get()); }
#endif
  std::size_t largest() {
    std::lock_guard<std::mutex> lock(m);
    std::size_t b = 0;
    for (auto x : sizes) b = std::max(b, x);
    return b;
  }
  std::size_t count() {
    std::lock_guard<std::mutex> lock(m);
    return sizes.size();
  }
  void clear() {
    std::lock_guard<std::mutex> lock(m);
    sizes.clear();
  }
};
struct reset_at_exit {
  ~reset_at_exit() { ufunc::reset_memory_resource(); }
};

}  // namespace lazy_random_test

using namespace lazy_random_test;

TEST_CASE("random lazy: every reduction of a leaf is that of its array") {
  const auto seed = test::fresh_seed();
  check_reductions<host>(seed);
#if defined(UFUNC_BACKEND_CUDA)
  check_reductions<ufunc::target::device>(seed + 100);
#endif
}

TEST_CASE("random lazy: no array of draws is allocated") {
  using Tg = ufunc::target::device;
  const auto seed = test::fresh_seed();
  CAPTURE(seed);
  const index_t n = index_t(1) << 20;
  auto y = ufunc::empty<float, Tg>(shape{n});
  auto want = ufunc::random::normal<float, Tg>(shape{n}, seed, 0.f, 10.f);
  const double want_sum = ufunc::sum(want);
  recording_resource r;
  {
    reset_at_exit guard;
    ufunc::set_memory_resource(r);
    const auto e = ufunc::random::lazy_normal<float>(shape{n}, seed, 0.f, 10.f);
    ufunc::evaluate(e, ufunc::out(y));  // into out: nothing allocated
    CHECK(r.count() == 0);
    const auto a = ufunc::evaluate(e);  // a new array: the result alone
    CHECK(r.count() == 1);
    CHECK(r.largest() == static_cast<std::size_t>(n) * sizeof(float));
    r.clear();
    const float s = ufunc::sum(ufunc::random::lazy_normal<float>(shape{n}, seed) * 10.0f);
    // A reduction's partial results at most (a few KiB), never n elements.
    CHECK(r.largest() < static_cast<std::size_t>(n) * sizeof(float) / 64);
    CHECK(std::fabs(s - want_sum) <= 1e-3 * std::fabs(want_sum) + 1.0);
    r.clear();
    const auto cols = ufunc::sum(ufunc::random::lazy_normal<float>(shape{1024, 1024}, seed), ufunc::axis(0));
    CHECK(r.largest() < static_cast<std::size_t>(n) * sizeof(float) / 64);
    (void)cols;
  }
  CHECK(bits_differ(y.to_host(), want.to_host()) == 0);
}

#if defined(UFUNC_BACKEND_CUDA)
TEST_CASE("random lazy: leaves in streamed calls (host leaves of a device expression) draw the chunks' elements") {
  using Tg = ufunc::target::device;
  using ufunc::lazy;
  const auto seed = test::fresh_seed();
  CAPTURE(seed);
  const index_t m = 203, n = 31;
  const shape s{m, n};
  const auto xh = test::random_vector<float>(static_cast<std::size_t>(m * n), seed + 1);
  const auto xd = ufunc::to_device(xh, s);
  ufunc::pinned_array<float> xp(s);
  std::copy(xh.begin(), xh.end(), xp.data());
  const auto z = ufunc::random::normal<float, Tg>(s, seed);
  const auto zl = ufunc::random::lazy_normal<float>(s, seed);
  const auto zc = ufunc::random::normal<float, Tg>(shape{m, 1}, seed);
  const auto zcl = ufunc::random::lazy_normal<float>(shape{m, 1}, seed);
  ufunc::set_device_memory_limit(static_cast<std::size_t>(3 * 4 * n * 7 + 1024));  // a few rows a chunk
  struct unlimit {
    ~unlimit() { ufunc::set_device_memory_limit(0); }
  } guard;
  const auto a = ufunc::evaluate(lazy(xd) * lazy(xp) + zl).to_host();  // host leaf: a host result
  const auto b = ufunc::evaluate(lazy(xd) * lazy(xp) + lazy(z)).to_host();
  CHECK(bits_differ(a, b) == 0);
  CHECK(bits_differ(ufunc::evaluate(lazy(xp) * zcl + lazy(xd)).to_host(),
                    ufunc::evaluate(lazy(xp) * lazy(zc) + lazy(xd)).to_host()) == 0);
  CHECK(index_t(ufunc::argmax(lazy(xp) + zl)) == index_t(ufunc::argmax(lazy(xp) + lazy(z))));
  CHECK(bits_differ(ufunc::argmin(lazy(xp) + zl, ufunc::axis(0)).to_host(),
                    ufunc::argmin(lazy(xp) + lazy(z), ufunc::axis(0)).to_host()) == 0);
  // Sums of integers (exact in any order) through streamed chunks along each axis.
  const auto ih = test::random_vector<std::int64_t>(static_cast<std::size_t>(m * n), seed + 2, -1000, 1000);
  ufunc::pinned_array<std::int64_t> ip(s);
  std::copy(ih.begin(), ih.end(), ip.data());
  const auto k = ufunc::random::integers<std::int64_t, Tg>(s, seed, -99, 100);
  const auto kl = ufunc::random::lazy_integers<std::int64_t>(s, seed, -99, 100);
  const auto kc = ufunc::random::integers<std::int64_t, Tg>(shape{m, 1}, seed, -99, 100);
  const auto kcl = ufunc::random::lazy_integers<std::int64_t>(shape{m, 1}, seed, -99, 100);
  CHECK(std::int64_t(ufunc::sum(lazy(ip) * kl)) == std::int64_t(ufunc::sum(lazy(ip) * lazy(k))));
  CHECK(bits_differ(ufunc::sum(lazy(ip) * kl, ufunc::axis(0)).to_host(),
                    ufunc::sum(lazy(ip) * lazy(k), ufunc::axis(0)).to_host()) == 0);
  CHECK(bits_differ(ufunc::sum(lazy(ip) * kcl, ufunc::axis(1)).to_host(),
                    ufunc::sum(lazy(ip) * lazy(kc), ufunc::axis(1)).to_host()) == 0);
  CHECK(bits_differ(ufunc::sum(lazy(ip) - kcl, ufunc::axis(0)).to_host(),
                    ufunc::sum(lazy(ip) - lazy(kc), ufunc::axis(0)).to_host()) == 0);
  // A leaf pinned to the host stays there with pinned memory (no streaming): the host's draws.
  const auto zh = ufunc::random::normal<float, host>(s, seed);
  CHECK(bits_differ(ufunc::evaluate(lazy(xp) + ufunc::random::lazy_normal<float, host>(s, seed)).to_host(),
                    ufunc::evaluate(lazy(xp) + lazy(zh)).to_host()) == 0);
}
#endif
