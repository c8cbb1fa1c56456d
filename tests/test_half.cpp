// __half and __nv_bfloat16 as element types (element.hpp), on every target of
// the build: conversions through `convert` against a software round-to-nearest-
// even written here from float bits (tests/half_support.hpp); elementwise
// arithmetic (one correctly rounded operation: bit-exact), mixed with float, with
// NaN and inf; the 8-wide vector path on ragged, misaligned and strided data.
// Reductions: test_half_reduce.cpp; methods, atomics, streamed operands:
// test_half_ops.cpp. One templated body per aspect, run for both types and both
// targets.
#include "half_support.hpp"

using namespace half_test;

namespace {

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
