// 16-bit floats (see test_half.cpp): accumulate, outer, transpose, a lazy
// expression; the atomics from parallel_for; std::vector operands of a device
// call (streamed on the CUDA target); for both types and both targets.
#include "half_support.hpp"

using namespace half_test;

namespace {

template <class T, class Target>
void methods_on(std::uint64_t seed) {
  INFO(name16<T>());
  const index_t n = 3001;
  const auto h = random16<T>(static_cast<std::size_t>(n), seed, -4, 4, false);
  const auto x = ufunc::asarray<Target>(h);
  const auto cs = ufunc::vectorize<Target>(ufunc::plus{}).accumulate(x);
  static_assert(std::is_same_v<typename decltype(cs)::value_type, float>);
  const auto hc = cs.to_host();
  double run = 0, mag = 0;
  std::size_t bad = 0;
  for (std::size_t i = 0; i < h.size(); ++i) {
    run += widen_v(h[i]), mag += std::fabs(widen_v(h[i]));
    bad += !(std::fabs(hc[i] - run) <= double(i + 1) * std::ldexp(1.0, -24) * mag + 1e-6);
  }
  CHECK(bad == 0);
  // outer: (5) x (3,2) -> (5,3,2), bit-exact.
  const auto hx = random16<T>(5, seed + 1, -100, 100, false);
  const auto hy = random16<T>(6, seed + 2, -100, 100, false);
  const auto add = ufunc::vectorize<Target>(add16<T>{});
  const auto o = add.outer(ufunc::asarray<Target>(hx), ufunc::asarray<Target>(hy, shape{3, 2}));
  REQUIRE(o.shape() == shape(5, 3, 2));
  std::vector<std::uint16_t> wo(30);
  for (std::size_t i = 0; i < 5; ++i)
    for (std::size_t j = 0; j < 6; ++j) wo[i * 6 + j] = round_bits<T>(widen_v(hx[i]) + widen_v(hy[j]));
  expect_bits(o.to_host(), wo, "outer");
  // transpose of a ragged (37, 65): bits moved unchanged.
  const index_t r = 37, c = 65;
  const auto hm = random16<T>(static_cast<std::size_t>(r * c), seed + 3, -100, 100, true);
  const auto t = ufunc::transpose(ufunc::asarray<Target>(hm, shape{r, c})).to_host();
  std::vector<std::uint16_t> wt(t.size());
  for (index_t i = 0; i < r; ++i)
    for (index_t j = 0; j < c; ++j) wt[static_cast<std::size_t>(j * r + i)] = bits16(hm[static_cast<std::size_t>(i * c + j)]);
  expect_bits(t, wt, "transpose");
  // lazy: (x * y) + x, each node rounded to T, evaluated into a T array.
  const auto mul = ufunc::vectorize<Target>(mul16<T>{});
  const auto hz = random16<T>(static_cast<std::size_t>(n), seed + 4, -4, 4, true);
  const auto z = ufunc::asarray<Target>(hz);
  auto e = add.lazy(mul.lazy(x, z), x);
  auto res = ufunc::empty<T, Target>(shape{n});
  ufunc::evaluate(e, ufunc::out(res));
  // Each node rounded (two roundings), or, where the GPU's compiler contracts the
  // mul and add into one fma (as it may for float), one rounding of the exact value.
  const auto got = res.to_host();
  std::size_t bad_lazy = 0;
  for (std::size_t i = 0; i < h.size(); ++i) {
    const std::uint16_t two = round_bits<T>(widen<T>(round_bits<T>(widen_v(h[i]) * widen_v(hz[i]))) + widen_v(h[i]));
    const double exact = double(widen_v(h[i])) * double(widen_v(hz[i])) + double(widen_v(h[i]));
    const double g = widen_v(got[i]);
    const bool one_rounding =
        std::isfinite(exact) && std::fabs(g - exact) <= 1.001 * unit<T>() * std::fabs(exact) + std::ldexp(1.0, -25);
    bad_lazy += !(same16(got[i], two) || one_rounding);
  }
  INFO("lazy x * z + x: " << bad_lazy << " wrong");
  CHECK(bad_lazy == 0);
}

/// The atomics on T from parallel_for: small integers, so every partial sum is
/// exact in both types (|sum| <= 200 < 256) and the result is order-free.
template <class T, class Target>
void atomics_on(std::uint64_t seed) {
  INFO(name16<T>());
  const std::size_t n = 4000, m = 61;
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> d(-3, 3);
  std::vector<T> hv(n);
  for (auto& v : hv) v = round_to<T>(static_cast<float>(d(rng)));
  const auto v = ufunc::asarray<Target>(hv);
  std::vector<T> init(5 * m, round_to<T>(0.f));
  for (std::size_t s = 0; s < m; ++s) init[2 * m + s] = round_to<T>(100.f), init[3 * m + s] = round_to<T>(-100.f);
  auto acc = ufunc::asarray<Target>(init);
  const auto vv = v.view();
  auto a = acc.view();
  const index_t M = static_cast<index_t>(m);
  ufunc::parallel_for<Target>(n, [=] UFUNC_HD (std::size_t i) {
    const index_t s = static_cast<index_t>(i % m);
    const T x = vv[static_cast<index_t>(i)];
    ufunc::atomic_add(&a[s], x);
    ufunc::atomic_sub(&a[M + s], x);
    ufunc::atomic_min(&a[2 * M + s], x);
    ufunc::atomic_max(&a[3 * M + s], x);
    T* p = &a[4 * M + s];  // a sum by compare-and-swap (bit comparison)
    T old = ufunc::atomic_load(p), seen;
    do {
      seen = old;
      old = ufunc::atomic_cas(p, seen, static_cast<T>(seen + x));
    } while (hd_bits(old) != hd_bits(seen));
  });
  std::vector<float> want(5 * m);
  for (std::size_t s = 0; s < m; ++s) want[2 * m + s] = 100.f, want[3 * m + s] = -100.f;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t s = i % m;
    const float x = widen_v(hv[i]);
    want[s] += x, want[m + s] -= x, want[4 * m + s] += x;
    want[2 * m + s] = std::min(want[2 * m + s], x), want[3 * m + s] = std::max(want[3 * m + s], x);
  }
  const auto got = acc.to_host();
  std::size_t bad = 0;
  for (std::size_t k = 0; k < got.size(); ++k) bad += fbits(widen_v(got[k])) != fbits(want[k]);
  CHECK(bad == 0);
  // exch: the slot ends holding one of the written values; each returned once.
  auto slot = ufunc::asarray<Target>(std::vector<T>{round_to<T>(-1.f)});
  auto olds = ufunc::empty<T, Target>(shape{64});
  auto sp = slot.view();
  auto op = olds.view();
  ufunc::parallel_for<Target>(std::size_t(64), [=] UFUNC_HD (std::size_t i) {
    op[static_cast<index_t>(i)] = ufunc::atomic_exch(&sp[index_t(0)], static_cast<T>(static_cast<float>(i)));
  });
  std::vector<float> seen;
  for (const auto& x : olds.to_host()) seen.push_back(widen_v(x));
  seen.push_back(widen_v(slot.to_host()[0]));
  std::sort(seen.begin(), seen.end());
  for (std::size_t k = 0; k < seen.size(); ++k) CHECK(seen[k] == static_cast<float>(k) - 1.f);
}

/// Host memory operands (std::vector) of a device call: streamed in chunks on
/// the CUDA target, plain host calls in a host build.
template <class T>
void host_memory_operands(std::uint64_t seed) {
  INFO(name16<T>());
  const std::size_t n = 3000001;  // about 6 MB per operand: several chunks
  const auto ha = random16<T>(n, seed, -300, 300, true);
  const auto hb = random16<T>(n, seed + 1, -300, 300, true);
  const std::vector<T> r = ufunc::vectorize(add16<T>{})(ha, hb);
  std::vector<std::uint16_t> w(n);
  for (std::size_t i = 0; i < n; ++i) w[i] = round_bits<T>(widen_v(ha[i]) + widen_v(hb[i]));
  expect_bits(r, w, "streamed a + b");
  const auto hs = random16<T>(n, seed + 2, -1, 1, false);
  double ref = 0, mag = 0;
  for (const auto& v : hs) ref += widen_v(v), mag += std::fabs(widen_v(v));
  const float s = ufunc::sum(hs);
  CHECK(std::fabs(s - ref) <= double(n) * std::ldexp(1.0, -24) * mag);
}

}  // namespace

TEST_CASE("16-bit floats: accumulate, outer, transpose, lazy") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  test::for_each_target([&](auto tg) {
    using Tg = decltype(tg);
    methods_on<__half, Tg>(seed);
    methods_on<__nv_bfloat16, Tg>(seed);
  });
}

TEST_CASE("16-bit floats: atomics from parallel_for") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  test::for_each_target([&](auto tg) {
    using Tg = decltype(tg);
    atomics_on<__half, Tg>(seed);
    atomics_on<__nv_bfloat16, Tg>(seed);
  });
}

TEST_CASE("16-bit floats: host memory operands of a device call (streamed)") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  host_memory_operands<__half>(seed);
  host_memory_operands<__nv_bfloat16>(seed);
}
