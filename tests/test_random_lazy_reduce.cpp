// ufunc::random's lazy leaves (issue 41) in reductions of float leaves: whole,
// over each axis and several, keepdims, out(...), mean, min, max, argmin, argmax
// and map_reduce, against the same reduction of the array the same arguments
// make: exact wherever both take the same order (the host's sums of a leaf and
// of its array as an expression's leaf; min, max, argmin, argmax on every
// target), within the documented float bound of a double loop otherwise. The
// device's references are computed on the host from its array copied back
// (min, max, first argmin and argmax: exact in any order; a device reduction of
// the array compiled the reduction kernels again for arrays, only to be a
// reference, in one of the GPU suite's longest units); the host target's
// compare with the library's reductions of the array too.
// No array of draws allocated (a recording memory resource); in CUDA builds,
// leaves in streamed calls drawing their chunks' elements. Integer, double and
// 16-bit leaves, two inputs, the pairwise layouts: test_random_lazy_more.cpp.
#include "random_lazy_support.hpp"

#include <ufunc/memory_resource.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <utility>
#include <vector>

namespace lazy_random_test {

/// min, max and the first argmin and argmax of each (o, i) along k of the
/// row-major elements h of shape (outer, len, inner): host references.
struct extrema {
  std::vector<float> mn, mx;
  std::vector<index_t> amn, amx;
};
inline extrema extrema_of(const std::vector<float>& h, index_t outer, index_t len, index_t inner) {
  extrema r;
  for (index_t o = 0; o < outer; ++o)
    for (index_t i = 0; i < inner; ++i) {
      index_t a = 0, b = 0;
      for (index_t k = 1; k < len; ++k) {
        const float v = h[static_cast<std::size_t>((o * len + k) * inner + i)];
        if (v < h[static_cast<std::size_t>((o * len + a) * inner + i)]) a = k;
        if (v > h[static_cast<std::size_t>((o * len + b) * inner + i)]) b = k;
      }
      r.mn.push_back(h[static_cast<std::size_t>((o * len + a) * inner + i)]);
      r.mx.push_back(h[static_cast<std::size_t>((o * len + b) * inner + i)]);
      r.amn.push_back(a);
      r.amx.push_back(b);
    }
  return r;
}

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
    const auto ex = extrema_of(zh, 1, index_t(zh.size()), 1);
    CHECK(float(ufunc::min(zl)) == ex.mn[0]);
    CHECK(float(ufunc::max(zl)) == ex.mx[0]);
    CHECK(index_t(ufunc::argmin(zl)) == ex.amn[0]);
    CHECK(index_t(ufunc::argmax(zl)) == ex.amx[0]);
    if constexpr (on_host) {
      CHECK(float(ufunc::min(zl)) == float(ufunc::min(z)));
      CHECK(float(ufunc::max(zl)) == float(ufunc::max(z)));
      CHECK(index_t(ufunc::argmin(zl)) == index_t(ufunc::argmin(z)));
      CHECK(index_t(ufunc::argmax(zl)) == index_t(ufunc::argmax(z)));
    }
    const float sq = ufunc::map_reduce(square_fn{}, ufunc::plus{})(zl);
    if constexpr (on_host) CHECK(sq == ufunc::map_reduce(square_fn{}, ufunc::plus{})(z));
    // Each axis, with and without keepdims, into out(...) too; the axis' sums
    // against a double loop over the array.
    for (int ax = 0; ax < s.size(); ++ax) {
      CAPTURE(ax);
      const auto r = ufunc::sum(zl, ufunc::axis(ax));
      const auto rk = ufunc::sum(zl, ufunc::axis(ax), ufunc::keepdims);
      auto rdims = test::dims_of(s), kdims = rdims;
      rdims.erase(rdims.begin() + ax);
      kdims[static_cast<std::size_t>(ax)] = 1;
      CHECK(r.shape() == test::shape_of(rdims));
      CHECK(rk.shape() == test::shape_of(kdims));
      if constexpr (on_host) {
        CHECK(r.shape() == ufunc::sum(z, ufunc::axis(ax)).shape());
        CHECK(rk.shape() == ufunc::sum(z, ufunc::axis(ax), ufunc::keepdims).shape());
      }
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
      const auto ea = extrema_of(zh, outer, len, inner);
      CHECK(bits_differ(ufunc::max(zl, ufunc::axis(ax)).to_host(), ea.mx) == 0);
      CHECK(bits_differ(ufunc::min(zl, ufunc::axis(ax)).to_host(), ea.mn) == 0);
      CHECK(bits_differ(ufunc::argmax(zl, ufunc::axis(ax)).to_host(), ea.amx) == 0);
      CHECK(bits_differ(ufunc::argmin(zl, ufunc::axis(ax)).to_host(), ea.amn) == 0);
      if constexpr (on_host) {
        CHECK(bits_differ(ufunc::max(zl, ufunc::axis(ax)).to_host(), ufunc::max(z, ufunc::axis(ax)).to_host()) == 0);
        CHECK(bits_differ(ufunc::min(zl, ufunc::axis(ax)).to_host(), ufunc::min(z, ufunc::axis(ax)).to_host()) == 0);
        CHECK(bits_differ(ufunc::argmax(zl, ufunc::axis(ax)).to_host(), ufunc::argmax(z, ufunc::axis(ax)).to_host()) == 0);
        CHECK(bits_differ(ufunc::argmin(zl, ufunc::axis(ax)).to_host(), ufunc::argmin(z, ufunc::axis(ax)).to_host()) == 0);
        CHECK(bits_differ(ufunc::mean(zl, ufunc::axis(ax)).to_host(), ufunc::mean(lazy(z), ufunc::axis(ax)).to_host()) == 0);
        CHECK(bits_differ(ufunc::map_reduce(square_fn{}, ufunc::plus{})(zl, ufunc::axis(ax)).to_host(),
                          ufunc::map_reduce(square_fn{}, ufunc::plus{})(z, ufunc::axis(ax)).to_host()) == 0);
      }
    }
    if (s.size() >= 2) {  // several axes at once
      const auto r = ufunc::sum(zl, ufunc::axes{0, s.size() - 1}, ufunc::keepdims).to_host();
      // The double reference: element e goes to the output with coordinates 0 and
      // s.size() - 1 set to 0 (keepdims), i.e. its middle coordinates.
      index_t mid = 1;
      for (int d = 1; d + 1 < s.size(); ++d) mid *= s[d];
      const index_t last = s[s.size() - 1];
      std::vector<double> rs(static_cast<std::size_t>(mid), 0.0), ra(static_cast<std::size_t>(mid), 0.0);
      for (std::size_t e = 0; e < zh.size(); ++e) {
        const auto o = static_cast<std::size_t>((static_cast<index_t>(e) / last) % mid);
        rs[o] += zh[e], ra[o] += std::fabs(zh[e]);
      }
      CHECK(r.size() == rs.size());
      const double len = double(s.count()) / double(mid);
      int bad = 0;
      for (std::size_t i = 0; i < r.size() && i < rs.size(); ++i) bad += !(std::fabs(r[i] - rs[i]) <= sum_bound(len, ra[i], eps));
      CHECK(bad == 0);
      if constexpr (on_host)
        CHECK(bits_differ(r, ufunc::sum(lazy(z), ufunc::axes{0, s.size() - 1}, ufunc::keepdims).to_host()) == 0);
    }
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

/// Whole reductions of leaves at every size class of the device's made-source
/// kernel (a slot or less, a partial last slot, one block, a partial wave,
/// many blocks) and in both of its layouts: flat (one leaf, two leaves of
/// different kinds, an integer leaf) and element by element (leaves broadcast
/// against each other). References: the same draws as arrays, copied back and
/// reduced on the host (min, max, argmin, argmax and integer sums exact; float
/// sums within the documented bound of a double loop).
template <class Tg>
void check_whole_sizes(std::uint64_t seed) {
  CAPTURE(seed);
  const double eps = std::ldexp(1.0, -24);
  for (index_t n : {index_t(1), index_t(2), index_t(3), index_t(4), index_t(5), index_t(7), index_t(9), index_t(1023),
                    index_t(1024), index_t(1025), index_t(262147), (index_t(1) << 22) + 5}) {
    CAPTURE(n);
    const shape s{n};
    const auto zh = ufunc::random::normal<float, Tg>(s, seed, -1.f, 3.f).to_host();
    const auto uh = ufunc::random::uniform<float, Tg>(s, seed + 1, 2.f, 5.f).to_host();
    const auto zl = ufunc::random::lazy_normal<float, Tg>(s, seed, -1.f, 3.f);
    const auto ul = ufunc::random::lazy_uniform<float, Tg>(s, seed + 1, 2.f, 5.f);
    double ref = 0, abs_sum = 0, ref2 = 0, abs2 = 0;
    std::vector<float> w(zh.size());
    for (std::size_t i = 0; i < zh.size(); ++i) {
      ref += zh[i], abs_sum += std::fabs(zh[i]);
      w[i] = zh[i] - uh[i];  // (one rounding: no contraction to differ by)
      ref2 += w[i], abs2 += std::fabs(w[i]);
    }
    CHECK(std::fabs(float(ufunc::sum(zl)) - ref) <= sum_bound(double(n), abs_sum, eps));
    const auto ex = extrema_of(zh, 1, n, 1);
    CHECK(float(ufunc::min(zl)) == ex.mn[0]);
    CHECK(float(ufunc::max(zl)) == ex.mx[0]);
    CHECK(index_t(ufunc::argmin(zl)) == ex.amn[0]);
    CHECK(index_t(ufunc::argmax(zl)) == ex.amx[0]);
    // Two leaves (flat: both start at element 0), and into out(...).
    const auto e2 = zl - ul;
    CHECK(std::fabs(float(ufunc::sum(e2)) - ref2) <= sum_bound(double(n), abs2, eps));
    const auto ew = extrema_of(w, 1, n, 1);
    CHECK(index_t(ufunc::argmax(e2)) == ew.amx[0]);
    CHECK(float(ufunc::min(e2)) == ew.mn[0]);
    auto o = ufunc::empty<float, Tg>(shape{});
    ufunc::sum(zl, ufunc::out(o));
    CHECK(std::fabs(o.to_host()[0] - ref) <= sum_bound(double(n), abs_sum, eps));
    // Integers: exact.
    const auto kh = ufunc::random::integers<std::int64_t, Tg>(s, seed + 2, -1000, 1000).to_host();
    std::int64_t kref = 0;
    for (auto v : kh) kref += v;
    CHECK(std::int64_t(ufunc::sum(ufunc::random::lazy_integers<std::int64_t, Tg>(s, seed + 2, -1000, 1000))) == kref);
  }
  // Broadcast leaves: a column of normals plus a row of uniforms, whole.
  for (const auto& mn : {std::pair<index_t, index_t>{3, 5}, std::pair<index_t, index_t>{1000, 1027}}) {
    const index_t m = mn.first, n = mn.second;
    CAPTURE(m);
    CAPTURE(n);
    const auto ch = ufunc::random::normal<float, Tg>(shape{m, 1}, seed + 3).to_host();
    const auto rh = ufunc::random::uniform<float, Tg>(shape{1, n}, seed + 4).to_host();
    const auto e = ufunc::random::lazy_normal<float, Tg>(shape{m, 1}, seed + 3) +
                   ufunc::random::lazy_uniform<float, Tg>(shape{1, n}, seed + 4);
    std::vector<float> w(static_cast<std::size_t>(m * n));
    double ref = 0, abs_sum = 0;
    for (index_t i = 0; i < m; ++i)
      for (index_t j = 0; j < n; ++j) {
        const float v = ch[static_cast<std::size_t>(i)] + rh[static_cast<std::size_t>(j)];
        w[static_cast<std::size_t>(i * n + j)] = v;
        ref += v, abs_sum += std::fabs(v);
      }
    CHECK(std::fabs(float(ufunc::sum(e)) - ref) <= sum_bound(double(m * n), abs_sum, eps));
    const auto ex = extrema_of(w, 1, m * n, 1);
    CHECK(float(ufunc::max(e)) == ex.mx[0]);
    CHECK(index_t(ufunc::argmin(e)) == ex.amn[0]);
  }
}

TEST_CASE("random lazy: whole reductions of leaves at every size, flat and broadcast") {
  const auto seed = test::fresh_seed();
  check_whole_sizes<host>(seed);
#if defined(UFUNC_BACKEND_CUDA)
  check_whole_sizes<ufunc::target::device>(seed + 100);
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
  // (A host leaf joins a device node where it meets it: lazy(xp) * zcl alone would be a host node.)
  CHECK(bits_differ(ufunc::evaluate(zcl * lazy(xd) + lazy(xp)).to_host(),
                    ufunc::evaluate(lazy(zc) * lazy(xd) + lazy(xp)).to_host()) == 0);
  // Reductions of device expressions with a host leaf (streamed: the leaf's draws
  // are made on the device per chunk). Argmin/argmax are exact in any order;
  // integer sums too, along each axis. The references: the same elements made
  // on the host from the device's arrays copied back (float adds alone, in the
  // same order: exact), reduced there (not the same streamed reductions of
  // array leaves, which compiled the streamed kernels again only to be references).
  const auto zdh = z.to_host();
  std::vector<float> w(zdh.size());
  for (std::size_t e = 0; e < w.size(); ++e) w[e] = zdh[e] + xh[e] + xh[e];
  CHECK(index_t(ufunc::argmax(zl + lazy(xd) + lazy(xp))) == extrema_of(w, 1, m * n, 1).amx[0]);
  CHECK(bits_differ(ufunc::argmin(zl + lazy(xd) + lazy(xp), ufunc::axis(0)).to_host(), extrema_of(w, 1, m, n).amn) == 0);
  const auto ih = test::random_vector<std::int64_t>(static_cast<std::size_t>(m * n), seed + 2, -1000, 1000);
  ufunc::pinned_array<std::int64_t> ip(s);
  std::copy(ih.begin(), ih.end(), ip.data());
  const auto kd = ufunc::random::integers<std::int64_t, Tg>(s, seed + 3, -9, 10);
  const auto k = ufunc::random::integers<std::int64_t, Tg>(s, seed, -99, 100);
  const auto kl = ufunc::random::lazy_integers<std::int64_t>(s, seed, -99, 100);
  const auto kc = ufunc::random::integers<std::int64_t, Tg>(shape{m, 1}, seed, -99, 100);
  const auto kcl = ufunc::random::lazy_integers<std::int64_t>(shape{m, 1}, seed, -99, 100);
  const auto kh = k.to_host(), kdh = kd.to_host(), kch = kc.to_host();
  // k * kd + ip and kc * kd - ip (kc broadcast along axis 1), and their sums along axis ax.
  std::vector<std::int64_t> u(kh.size()), v(kh.size());
  for (index_t i = 0; i < m; ++i)
    for (index_t j = 0; j < n; ++j) {
      const auto e = static_cast<std::size_t>(i * n + j);
      u[e] = kh[e] * kdh[e] + ih[e];
      v[e] = kch[static_cast<std::size_t>(i)] * kdh[e] - ih[e];
    }
  auto sum_along = [&](const std::vector<std::int64_t>& h, int ax) {
    std::vector<std::int64_t> r(static_cast<std::size_t>(ax == 0 ? n : m), 0);
    for (index_t i = 0; i < m; ++i)
      for (index_t j = 0; j < n; ++j) r[static_cast<std::size_t>(ax == 0 ? j : i)] += h[static_cast<std::size_t>(i * n + j)];
    return r;
  };
  std::int64_t u_all = 0;
  for (auto x : u) u_all += x;
  CHECK(std::int64_t(ufunc::sum(kl * lazy(kd) + lazy(ip))) == u_all);
  for (int ax = 0; ax < 2; ++ax) {
    CAPTURE(ax);
    CHECK(bits_differ(ufunc::sum(kl * lazy(kd) + lazy(ip), ufunc::axis(ax)).to_host(), sum_along(u, ax)) == 0);
    CHECK(bits_differ(ufunc::sum(kcl * lazy(kd) - lazy(ip), ufunc::axis(ax)).to_host(), sum_along(v, ax)) == 0);
  }
  // With host leaves alone, a leaf (pinned to the host or not) runs on the host, as
  // any expression of host arrays: the host's draws, pinned memory read in place.
  const auto zh = ufunc::random::normal<float, host>(s, seed);
  const auto hz = ufunc::evaluate(lazy(xp) + ufunc::random::lazy_normal<float, host>(s, seed));
  static_assert(std::is_same_v<typename decltype(hz)::target_type, host>);
  CHECK(bits_differ(hz.to_host(), ufunc::evaluate(lazy(xp) + lazy(zh)).to_host()) == 0);
  CHECK(bits_differ(ufunc::evaluate(lazy(xp) + zl).to_host(), hz.to_host()) == 0);
  CHECK(std::int64_t(ufunc::sum(lazy(ip) + kl)) ==
        std::int64_t(ufunc::sum(lazy(ip) + lazy(ufunc::random::integers<std::int64_t, host>(s, seed, -99, 100)))));
}
#endif
