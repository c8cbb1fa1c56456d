// __half and __nv_bfloat16 as element types (element.hpp), on every target of
// the build: conversions through `convert` against a software round-to-nearest-
// even written here from float bits; elementwise arithmetic (one correctly
// rounded operation: bit-exact), mixed with float, with NaN and inf; the 8-wide
// vector path on ragged, misaligned and strided data; reductions (float
// accumulators by default, reduce<Acc>), mean, min/max, argmin/argmax with NaN;
// accumulate, outer, transpose, a lazy expression; the atomics from parallel_for;
// std::vector operands of a device call (streamed on the CUDA target).
// One templated body per aspect, run for both types and both targets.
#include "test_support.hpp"

#include <cstring>
#include <limits>
#include <vector>

namespace {

using ufunc::index_t;
using ufunc::shape;

// ---------------------------------------------------------------------------
// An independent software model of the two formats, from float bits.

std::uint32_t fbits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float from_fbits(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
template <class T>
std::uint16_t bits16(const T& v) {
  std::uint16_t b;
  std::memcpy(&b, &v, 2);
  return b;
}
template <class T>
T from_bits16(std::uint16_t b) {
  T v;
  std::memcpy(static_cast<void*>(&v), &b, 2);
  return v;
}

/// float -> binary16 / bfloat16 bits, rounding to nearest even; NaN -> a quiet NaN.
template <class T>
std::uint16_t round_bits(float f) {
  const std::uint32_t u = fbits(f);
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((u >> 16) | 0x40u);
    return static_cast<std::uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
  } else {
    const std::uint16_t sign = static_cast<std::uint16_t>((u >> 16) & 0x8000u);
    const std::uint32_t a = u & 0x7fffffffu;
    if (a > 0x7f800000u) return sign | 0x7e00u;
    if (a >= 0x477ff000u) return sign | 0x7c00u;  // >= 65520: rounds to inf
    if (a < 0x38800000u) {                        // below 2^-14: a subnormal (or zero) result
      const int e = static_cast<int>(a >> 23);
      const int sh = 126 - (e == 0 ? 1 : e);      // value = m * 2^(e-150), in units of 2^-24
      if (sh >= 26) return sign;
      const std::uint32_t m = (a & 0x7fffffu) | (e ? 0x800000u : 0u);
      std::uint32_t r = m >> sh;
      const std::uint32_t rem = m & ((1u << sh) - 1u), half = 1u << (sh - 1);
      if (rem > half || (rem == half && (r & 1u))) ++r;
      return static_cast<std::uint16_t>(sign | r);
    }
    std::uint32_t r = a - (112u << 23);  // rebias 127 -> 15
    const std::uint32_t rem = r & 0x1fffu;
    r >>= 13;
    if (rem > 0x1000u || (rem == 0x1000u && (r & 1u))) ++r;
    return static_cast<std::uint16_t>(sign | r);
  }
}

/// 16-bit bits -> float (exact).
template <class T>
float widen(std::uint16_t b) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return from_fbits(std::uint32_t(b) << 16);
  } else {
    const std::uint32_t sign = std::uint32_t(b & 0x8000u) << 16;
    const std::uint32_t e = (b >> 10) & 0x1fu, m = b & 0x3ffu;
    if (e == 31) return from_fbits(sign | 0x7f800000u | (m << 13));
    if (e == 0) return (sign ? -1.f : 1.f) * std::ldexp(static_cast<float>(m), -24);
    return from_fbits(sign | ((e + 112u) << 23) | (m << 13));
  }
}
template <class T>
float widen_v(const T& v) {
  return widen<T>(bits16(v));
}
template <class T>
T round_to(float f) {
  return from_bits16<T>(round_bits<T>(f));
}
/// The bits of a 16-bit value, in host or device code.
template <class T>
UFUNC_HD unsigned short hd_bits(const T& v) {
  unsigned short b;
  memcpy(&b, &v, sizeof b);
  return b;
}
/// Same bits, or both NaN.
template <class T>
bool same16(const T& got, std::uint16_t want) {
  const float g = widen_v(got), w = widen<T>(want);
  if (std::isnan(g) || std::isnan(w)) return std::isnan(g) && std::isnan(w);
  return bits16(got) == want;
}
/// Unit roundoff of the type: 2^-11 (binary16), 2^-8 (bfloat16).
template <class T>
double unit() {
  return std::is_same_v<T, __half> ? std::ldexp(1.0, -11) : std::ldexp(1.0, -8);
}
template <class T>
std::string name16() {
  return std::is_same_v<T, __half> ? "__half" : "__nv_bfloat16";
}

/// Fresh random values of T in [lo, hi] (rounded from uniform floats), with NaN,
/// +inf and -inf at a few places when `specials`.
template <class T>
std::vector<T> random16(std::size_t n, std::uint64_t seed, float lo, float hi, bool specials) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<T> v(n);
  for (auto& x : v) x = round_to<T>(d(rng));
  if (specials && n >= 8) {
    std::uniform_int_distribution<std::size_t> at(0, n - 1);
    v[at(rng)] = round_to<T>(std::numeric_limits<float>::quiet_NaN());
    v[at(rng)] = round_to<T>(std::numeric_limits<float>::infinity());
    v[at(rng)] = round_to<T>(-std::numeric_limits<float>::infinity());
  }
  return v;
}

template <class T, class Want>
void expect_bits(const std::vector<T>& got, const Want& want, const char* what) {
  REQUIRE(got.size() == want.size());
  std::size_t bad = 0, first = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!same16(got[i], want[i])) {
      if (!bad) first = i;
      ++bad;
    }
  char msg[200];
  std::snprintf(msg, sizeof msg, "%s: %zu of %zu wrong; first %zu got 0x%04x want 0x%04x", what, bad, got.size(), first,
                bad ? unsigned(bits16(got[first])) : 0u, bad ? unsigned(want[first]) : 0u);
  INFO(std::string(msg));
  CHECK(bad == 0);
}

// ---------------------------------------------------------------------------
// The functions the tests vectorize (named types: nvcc allows no extended lambda
// in the generic lambdas of the loops).

template <class T>
struct add16 {
  UFUNC_HD T operator()(T a, T b) const { return a + b; }
};
template <class T>
struct mul16 {
  UFUNC_HD T operator()(T a, T b) const { return a * b; }
};
template <class T>
struct scale16 {  // mixed: a 16-bit and a float input, a float result
  UFUNC_HD float operator()(T a, float s) const { return static_cast<float>(a) * s; }
};
template <class T>
struct ident16 {
  UFUNC_HD T operator()(T a) const { return a; }
};
struct ident_f {
  UFUNC_HD float operator()(float a) const { return a; }
};
struct ident_i {
  UFUNC_HD int operator()(int a) const { return a; }
};

/// The reference float -> int32 store of `convert` (NaN 0, truncate, saturate).
int ref_to_int(float f) {
  if (f != f) return 0;
  if (f <= -2147483648.f) return INT_MIN;
  if (f >= 2147483648.f) return INT_MAX;
  return static_cast<int>(f);
}

// ---------------------------------------------------------------------------

/// Conversions into and out of T through out(...) stores on Target, on ragged
/// sizes and a misaligned view.
template <class T, class Target>
void conversions_on(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (index_t n : {index_t(1), index_t(7), index_t(8), index_t(9), index_t(4103)}) {
    INFO(name16<T>() << " n " << n);
    // float -> T: random bit patterns over T's range (normal, subnormal, beyond max), plus specials.
    std::vector<float> hf(static_cast<std::size_t>(n));
    std::uniform_int_distribution<std::uint32_t> e(0x30000000u, 0x48000000u);
    for (auto& f : hf) f = from_fbits(e(rng) | (rng() & 1u ? 0x80000000u : 0u));
    if (n >= 8) {
      hf[0] = std::numeric_limits<float>::quiet_NaN();
      hf[1] = -std::numeric_limits<float>::infinity();
      hf[2] = 65520.f;  // the binary16 tie to inf
      hf[3] = 65519.f;
      hf[4] = std::numeric_limits<float>::max();
      hf[5] = -0.f;
    }
    const auto xf = ufunc::asarray<Target>(hf);
    auto h = ufunc::empty<T, Target>(shape{n});
    ufunc::vectorize<Target>(ident_f{})(xf, ufunc::out(h));  // same_kind: float32 -> 16-bit
    std::vector<std::uint16_t> want(hf.size());
    for (std::size_t i = 0; i < hf.size(); ++i) want[i] = round_bits<T>(hf[i]);
    const auto got = h.to_host();
    expect_bits(got, want, "float -> 16-bit");
    // T -> float: exact; misaligned (offset by one element) when n > 1.
    const index_t off = n > 1 ? 1 : 0;
    auto back = ufunc::empty<float, Target>(shape{n - off});
    ufunc::vectorize<Target>(ident16<T>{})(h.view().sliced(0, off, n), ufunc::out(back));
    const auto hb = back.to_host();
    std::size_t bad = 0;
    for (std::size_t i = 0; i < hb.size(); ++i) {
      const float w = widen_v(got[i + static_cast<std::size_t>(off)]);
      bad += !(fbits(hb[i]) == fbits(w) || (std::isnan(hb[i]) && std::isnan(w)));
    }
    CHECK(bad == 0);
    // T -> int32: not same_kind (type_error); with unsafe_cast, convert's rules.
    auto hi = ufunc::empty<int, Target>(shape{n});
    CHECK_THROWS_AS(ufunc::vectorize<Target>(ident16<T>{})(h, ufunc::out(hi)), ufunc::type_error);
    ufunc::vectorize<Target>(ident16<T>{})(h, ufunc::out(hi), ufunc::unsafe_cast);
    const auto gi = hi.to_host();
    bad = 0;
    for (std::size_t i = 0; i < gi.size(); ++i) bad += gi[i] != ref_to_int(widen_v(got[i]));
    CHECK(bad == 0);
    // int32 -> T: same_kind; one rounding (|i| < 2^24, so through float is exact first).
    std::vector<int> ii(static_cast<std::size_t>(n));
    std::uniform_int_distribution<int> di(-100000, 100000);
    for (auto& v : ii) v = di(rng);
    auto hx = ufunc::empty<T, Target>(shape{n});
    ufunc::vectorize<Target>(ident_i{})(ufunc::asarray<Target>(ii), ufunc::out(hx));
    std::vector<std::uint16_t> wi(ii.size());
    for (std::size_t i = 0; i < ii.size(); ++i) wi[i] = round_bits<T>(static_cast<float>(ii[i]));
    expect_bits(hx.to_host(), wi, "int32 -> 16-bit");
  }
}

/// T op T -> T (one correctly rounded operation: bit-exact against rounding the
/// float result, which is exact or, for +, innocuous double rounding), T * float
/// -> float, NaN/inf; contiguous ragged, misaligned, strided and broadcast.
template <class T, class Target>
void arithmetic_on(std::uint64_t seed) {
  const auto add = ufunc::vectorize<Target>(add16<T>{});
  const auto mul = ufunc::vectorize<Target>(mul16<T>{});
  for (index_t n : {index_t(1), index_t(9), index_t(16), index_t(5003)}) {
    INFO(name16<T>() << " n " << n);
    const auto ha = random16<T>(static_cast<std::size_t>(n), seed + static_cast<std::uint64_t>(n), -300, 300, true);
    const auto hb = random16<T>(static_cast<std::size_t>(n), seed + 1 + static_cast<std::uint64_t>(n), -300, 300, true);
    const auto a = ufunc::asarray<Target>(ha);
    const auto b = ufunc::asarray<Target>(hb);
    auto ref = [&](auto op, std::size_t i, std::size_t j) { return round_bits<T>(op(widen_v(ha[i]), widen_v(hb[j]))); };
    const auto plus_f = [](float x, float y) { return x + y; };
    const auto times_f = [](float x, float y) { return x * y; };
    std::vector<std::uint16_t> ws(ha.size()), wp(ha.size());
    for (std::size_t i = 0; i < ha.size(); ++i) ws[i] = ref(plus_f, i, i), wp[i] = ref(times_f, i, i);
    const auto s = add(a, b);
    static_assert(std::is_same_v<typename decltype(s)::value_type, T>);
    expect_bits(s.to_host(), ws, "a + b");
    expect_bits(mul(a, b).to_host(), wp, "a * b");
    // Misaligned views (the vector path must fall back or realign).
    if (n > 2) {
      const auto m = add(a.view().sliced(0, 1, n), b.view().sliced(0, 0, n - 1)).to_host();
      std::vector<std::uint16_t> wm(m.size());
      for (std::size_t i = 0; i < m.size(); ++i) wm[i] = ref(plus_f, i + 1, i);
      expect_bits(m, wm, "misaligned a + b");
      // Strided: every other element.
      const auto st = mul(a.view().sliced(0, 0, n, 2), b.view().sliced(0, 0, n, 2)).to_host();
      std::vector<std::uint16_t> wst(st.size());
      for (std::size_t i = 0; i < st.size(); ++i) wst[i] = ref(times_f, 2 * i, 2 * i);
      expect_bits(st, wst, "strided a * b");
    }
    // Mixed with float: T * float -> float, computed in float (bit-exact).
    std::vector<float> hs(ha.size());
    std::mt19937_64 rng(seed ^ 0x5555u);
    std::uniform_real_distribution<float> d(-2, 2);
    for (auto& v : hs) v = d(rng);
    const auto sc = ufunc::vectorize<Target>(scale16<T>{})(a, ufunc::asarray<Target>(hs)).to_host();
    std::size_t bad = 0;
    for (std::size_t i = 0; i < sc.size(); ++i) {
      const float w = widen_v(ha[i]) * hs[i];
      bad += !(fbits(sc[i]) == fbits(w) || (std::isnan(sc[i]) && std::isnan(w)));
    }
    CHECK(bad == 0);
  }
  // Broadcast (rows, cols) + (cols) with a ragged row length.
  const index_t r = 13, c = 37;
  const auto hm = random16<T>(static_cast<std::size_t>(r * c), seed + 3, -50, 50, true);
  const auto hv = random16<T>(static_cast<std::size_t>(c), seed + 4, -50, 50, false);
  const auto bm = add(ufunc::asarray<Target>(hm, shape{r, c}), ufunc::asarray<Target>(hv)).to_host();
  std::vector<std::uint16_t> wb(bm.size());
  for (std::size_t i = 0; i < bm.size(); ++i)
    wb[i] = round_bits<T>(widen_v(hm[i]) + widen_v(hv[i % static_cast<std::size_t>(c)]));
  expect_bits(bm, wb, "broadcast (13,37) + (37)");
}

/// Reductions: result types, float accumulation (sum, prod, f.reduce), reduce<Acc>,
/// mean, min/max, argmin/argmax (NaN rules), an axis; 1-element and ragged sizes.
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

TEST_CASE("16-bit floats: element facts and the host conversion") {
  using ufunc::detail::element_traits;
  using ufunc::detail::same_kind_cast;
  test::for_each_type<__half, __nv_bfloat16>([](auto t) {
    using T = decltype(t);
    using tr = element_traits<T>;
    static_assert(tr::is_arithmetic && tr::is_floating && tr::has_atomics && tr::has_matmul);
    static_assert(tr::vec_width == 8 && tr::bytes == 2);
    static_assert(std::is_same_v<typename tr::sum_acc, float> && std::is_same_v<typename tr::mean_acc, float>);
    static_assert(std::is_same_v<ufunc::detail::default_acc_t<ufunc::plus, T>, float>);
    static_assert(std::is_same_v<ufunc::detail::default_acc_t<ufunc::maximum, T>, T>);
    static_assert(same_kind_cast<float, T>() && same_kind_cast<double, T>() && same_kind_cast<int, T>() &&
                  same_kind_cast<T, float>() && same_kind_cast<T, __half>() && same_kind_cast<bool, T>());
    static_assert(!same_kind_cast<T, int>() && !same_kind_cast<T, bool>() && !same_kind_cast<T, unsigned char>());
    const bool h = std::is_same_v<T, __half>;
    CHECK(bits16(tr::lowest()) == (h ? 0xfc00u : 0xff80u));
    CHECK(bits16(tr::highest()) == (h ? 0x7c00u : 0x7f80u));
    CHECK(tr::is_nan(round_to<T>(std::nanf(""))));
    CHECK(!tr::is_nan(tr::highest()));
    CHECK(std::string(ufunc::detail::element_name<T>()) == (h ? "float16" : "bfloat16"));
    // convert on the host against the software reference, over every 16-bit
    // pattern (out) and 2^22 float patterns plus the rounding boundaries (in).
    std::size_t bad = 0;
    for (std::uint32_t b = 0; b < 0x10000u; ++b) {
      const T v = from_bits16<T>(static_cast<std::uint16_t>(b));
      const float w = widen<T>(static_cast<std::uint16_t>(b));
      const float f = ufunc::detail::convert<float>(v);
      bad += !(fbits(f) == fbits(w) || (std::isnan(f) && std::isnan(w)));
      const double dd = ufunc::detail::convert<double>(v);
      bad += !(dd == double(w) || (std::isnan(dd) && std::isnan(w)));
      bad += ufunc::detail::convert<int>(v) != ref_to_int(w);
      const auto s16 = ufunc::detail::convert<std::int16_t>(v);
      bad += s16 != (std::isnan(w) ? 0 : w <= -32768.f ? -32768 : w >= 32767.f ? 32767 : static_cast<int>(w));
      bad += !same16(ufunc::detail::convert<T>(w), static_cast<std::uint16_t>(b));
    }
    const auto seed = test::fresh_seed();
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    for (int k = 0; k < (1 << 22); ++k) {
      const std::uint32_t u = static_cast<std::uint32_t>(rng());
      const float f = from_fbits(u);
      bad += !same16(ufunc::detail::convert<T>(f), round_bits<T>(f));
      // the tie points: halfway between neighbours of T
      const std::uint16_t b = static_cast<std::uint16_t>(u & 0x7bffu);
      const float mid = (widen<T>(b) + widen<T>(static_cast<std::uint16_t>(b + 1))) / 2;
      bad += !same16(ufunc::detail::convert<T>(mid), round_bits<T>(mid));
    }
    // double into T rounds once (not through float): a value just above a tie.
    const double above = 1.0 + unit<T>() + std::ldexp(1.0, -40);
    CHECK(widen_v(ufunc::detail::convert<T>(above)) == static_cast<float>(1.0 + 2 * unit<T>()));
    INFO(name16<T>());
    CHECK(bad == 0);
  });
}

TEST_CASE("16-bit floats: conversions through out on every target") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  test::for_each_target([&](auto tg) {
    using Tg = decltype(tg);
    conversions_on<__half, Tg>(seed);
    conversions_on<__nv_bfloat16, Tg>(seed);
  });
}

TEST_CASE("16-bit floats: elementwise arithmetic, mixed with float, NaN and inf") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  test::for_each_target([&](auto tg) {
    using Tg = decltype(tg);
    arithmetic_on<__half, Tg>(seed);
    arithmetic_on<__nv_bfloat16, Tg>(seed);
  });
}

TEST_CASE("16-bit floats: reductions, mean, min/max, argmin/argmax") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  test::for_each_target([&](auto tg) {
    using Tg = decltype(tg);
    reductions_on<__half, Tg>(seed);
    reductions_on<__nv_bfloat16, Tg>(seed);
  });
}

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
