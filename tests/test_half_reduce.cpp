// 16-bit floats (see test_half.cpp): reductions (float accumulators by default,
// reduce<Acc>), mean, min/max, argmin/argmax with NaN, for both types and both
// targets.
#include "half_support.hpp"

using namespace half_test;

namespace {

template <class T, class Target>
void reductions_on(std::uint64_t seed) {
  for (index_t n : {index_t(1), index_t(7), index_t(16), index_t(23), index_t(1000), index_t(70001)}) {
    INFO(name16<T>() << " n " << n);
    const auto h = random16<T>(static_cast<std::size_t>(n), seed + static_cast<std::uint64_t>(n), -8, 8, false);
    const auto x = ufunc::asarray<Target>(h);
    double ref = 0, mag = 0;
    float mn = std::numeric_limits<float>::infinity(), mx = -mn;
    std::size_t imn = 0, imx = 0;
    for (std::size_t i = 0; i < h.size(); ++i) {
      const float v = widen_v(h[i]);
      ref += v, mag += std::fabs(v);
      if (v < mn) mn = v, imn = i;
      if (v > mx) mx = v, imx = i;
    }
    const double nf = static_cast<double>(n);
    // sum: accumulates in float and returns float (element_traits::sum_acc).
    const auto s = ufunc::sum(x);
    static_assert(std::is_same_v<decltype(s), const float>);
    CHECK(std::fabs(s - ref) <= nf * std::ldexp(1.0, -24) * mag + 1e-6);
    // Views starting 1 and 8 elements in: the CUDA sum reads 16-bit inputs in
    // packs of 16 (two 16-byte loads) when the base is 16-byte aligned (offset 8),
    // element by element otherwise (offset 1); both against the same double sum.
    // (n 16 and 23 above: one whole pack, and one with a short last pack.)
    if (n >= 1000) {
      for (index_t off : {index_t(1), index_t(8)}) {
        double rv = 0, mv = 0;
        for (std::size_t i = static_cast<std::size_t>(off); i < h.size(); ++i) rv += widen_v(h[i]), mv += std::fabs(widen_v(h[i]));
        const float sv = ufunc::sum(x.view().sliced(0, off, n));
        CHECK_MESSAGE(std::fabs(sv - rv) <= nf * std::ldexp(1.0, -24) * mv + 1e-6, "view from " << off);
      }
    }
    // mean: float.
    const auto m = ufunc::mean(x);
    static_assert(std::is_same_v<decltype(m), const float>);
    CHECK(std::fabs(m - ref / nf) <= (std::ldexp(1.0, -24) * mag + 1e-6) + std::ldexp(1.0, -23) * std::fabs(ref / nf));
    // reduce<T>: accumulate in T itself (each partial rounded); bound n * u * sum|x|.
    const auto s16 = ufunc::reduce<T>(ufunc::plus{})(x);
    static_assert(std::is_same_v<decltype(s16), const T>);
    CHECK(std::fabs(widen_v(s16) - ref) <= nf * unit<T>() * mag + 1e-6);
    // sum into a 16-bit out: one rounding of the float sum.
    auto o = ufunc::empty<T, Target>(shape{1});
    ufunc::sum(x, ufunc::out(o));
    CHECK(std::fabs(widen_v(o.to_host()[0]) - ref) <= unit<T>() * std::fabs(ref) + nf * std::ldexp(1.0, -24) * mag + 1e-6);
    // prod: float as sum; 1000 factors near 1 at most (no underflow), bound 2 n u_float |prod|.
    const std::size_t np = std::min<std::size_t>(static_cast<std::size_t>(n), 1000);
    const auto hp = random16<T>(np, seed + 5 + static_cast<std::uint64_t>(n), 0.9f, 1.1f, false);
    double pref = 1;
    for (const auto& v : hp) pref *= widen_v(v);
    const auto p = ufunc::prod(ufunc::asarray<Target>(hp));
    static_assert(std::is_same_v<decltype(p), const float>);
    CHECK(std::fabs(p - pref) <= 2 * double(np) * std::ldexp(1.0, -24) * std::fabs(pref));
    // min/max exact (the element itself), argmin/argmax the first position.
    const auto lo = ufunc::min(x);
    static_assert(std::is_same_v<decltype(lo), const T>);
    CHECK(bits16(lo) == bits16(h[imn]));
    CHECK(bits16(ufunc::max(x)) == bits16(h[imx]));
    CHECK(ufunc::argmin(x) == static_cast<index_t>(imn));
    CHECK(ufunc::argmax(x) == static_cast<index_t>(imx));
    if (n >= 7) {
      // NaN: min/max/sum are NaN, argmin/argmax the first NaN; inf alone wins max.
      auto hn = h;
      hn[static_cast<std::size_t>(n) - 2] = round_to<T>(std::numeric_limits<float>::infinity());
      const auto xi = ufunc::asarray<Target>(hn);
      CHECK(std::isinf(widen_v(ufunc::max(xi))));
      CHECK(ufunc::argmax(xi) == n - 2);
      CHECK(std::isinf(ufunc::sum(xi)));
      hn[3] = round_to<T>(std::numeric_limits<float>::quiet_NaN());
      hn[5] = hn[3];
      const auto xn = ufunc::asarray<Target>(hn);
      CHECK(std::isnan(widen_v(ufunc::min(xn))));
      CHECK(std::isnan(widen_v(ufunc::max(xn))));
      CHECK(std::isnan(ufunc::sum(xn)));
      CHECK(std::isnan(ufunc::mean(xn)));
      CHECK(ufunc::argmin(xn) == 3);
      CHECK(ufunc::argmax(xn) == 3);
    }
  }
  // Along an axis: (rows, cols) ragged; sums (float arrays) and maxima (T arrays).
  const index_t r = 33, c = 129;
  const auto h = random16<T>(static_cast<std::size_t>(r * c), seed + 11, -8, 8, false);
  const auto x = ufunc::asarray<Target>(h, shape{r, c});
  const auto s1 = ufunc::sum(x, ufunc::axis(1));
  static_assert(std::is_same_v<typename decltype(s1)::value_type, float>);
  const auto hs1 = s1.to_host();
  const auto m0 = ufunc::max(x, ufunc::axis(0)).to_host();
  // f.reduce of vectorize(plus{}): axis 0, float as sum's.
  const auto c0 = ufunc::vectorize<Target>(ufunc::plus{}).reduce(x);
  static_assert(std::is_same_v<typename decltype(c0)::value_type, float>);
  const auto hc0 = c0.to_host();
  const auto a0 = ufunc::argmin(x, ufunc::axis(0)).to_host();
  std::size_t bad = 0;
  for (index_t i = 0; i < r; ++i) {
    double ref = 0, mag = 0;
    for (index_t j = 0; j < c; ++j) {
      const float v = widen_v(h[static_cast<std::size_t>(i * c + j)]);
      ref += v, mag += std::fabs(v);
    }
    bad += !(std::fabs(hs1[static_cast<std::size_t>(i)] - ref) <= double(c) * std::ldexp(1.0, -24) * mag + 1e-6);
  }
  for (index_t j = 0; j < c; ++j) {
    float best = -std::numeric_limits<float>::infinity(), worst = -best;
    index_t iw = 0;
    for (index_t i = 0; i < r; ++i) {
      const float v = widen_v(h[static_cast<std::size_t>(i * c + j)]);
      best = std::max(best, v);
      if (v < worst) worst = v, iw = i;
    }
    double col = 0, cmag = 0;
    for (index_t i = 0; i < r; ++i) {
      const float v = widen_v(h[static_cast<std::size_t>(i * c + j)]);
      col += v, cmag += std::fabs(v);
    }
    bad += !(std::fabs(hc0[static_cast<std::size_t>(j)] - col) <= double(r) * std::ldexp(1.0, -24) * cmag + 1e-6);
    bad += fbits(widen_v(m0[static_cast<std::size_t>(j)])) != fbits(best);
    bad += a0[static_cast<std::size_t>(j)] != iw;
  }
  CHECK(bad == 0);
}

/// accumulate (float by default for ufunc::plus), outer, transpose, a lazy
/// expression into a 16-bit out.
}  // namespace

TEST_CASE("16-bit floats: reductions, mean, min/max, argmin/argmax") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  test::for_each_target([&](auto tg) {
    using Tg = decltype(tg);
    reductions_on<__half, Tg>(seed);
    reductions_on<__nv_bfloat16, Tg>(seed);
  });
}

/// Whole sums and means of 2^25 + 13 16-bit floats (on the device: CUB over
/// 16-byte packs, many blocks, and the 13 elements past the last pack), to the
/// host and into out, called twice each, on every target, against a double
/// sum: the documented float bound.
template <class T, class Target>
void long_sums_on(std::uint64_t seed) {
  const index_t n = (index_t(1) << 25) + 13;
  const auto h = random16<T>(static_cast<std::size_t>(n), seed, -4, 4, false);
  double ref = 0, mag = 0;
  for (const auto& v : h) ref += widen_v(v), mag += std::fabs(widen_v(v));
  const double bound = (std::log2(double(n)) + 32) * std::ldexp(1.0, -24) * mag;
  const auto x = ufunc::asarray<Target>(h);
  for (int round = 0; round < 2; ++round) {
    CHECK(std::fabs(double(ufunc::sum(x)) - ref) <= bound);
    CHECK(std::fabs(double(ufunc::mean(x)) - ref / double(n)) <= bound / double(n) + std::ldexp(1.0, -23) * std::fabs(ref / double(n)));
    auto o = ufunc::empty<float, Target>(shape{});
    ufunc::sum(x, ufunc::out(o));
    CHECK(std::fabs(double(o.to_host()[0]) - ref) <= bound);
  }
}

TEST_CASE("16-bit floats: long whole sums and means (a full wave of blocks on the GPU)") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  test::for_each_target([&](auto tg) {
    using Tg = decltype(tg);
    long_sums_on<__half, Tg>(seed);
    long_sums_on<__nv_bfloat16, Tg>(seed + 1);
  });
}
