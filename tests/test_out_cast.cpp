// An `out` of another element type (out.hpp, ufunc::unsafe_cast): NumPy's
// same_kind rule by default (refused casts throw type_error naming both types and
// write nothing), any cast with ufunc::unsafe_cast, and the defined results of
// the conversions C++ leaves undefined (NaN, infinities and out-of-range floating
// values into integers), on every target, for calls, reductions and expressions.
// References are written here from the documented rule, independently of
// detail::convert.
#include "test_support.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

using ufunc::index_t;
using ufunc::shape;

namespace {

struct twice_f {
  template <class T>
  UFUNC_HD T operator()(T v) const { return v + v; }
};
struct ident_f {
  template <class T>
  UFUNC_HD T operator()(T v) const { return v; }
};

/// The documented float -> integer conversion: NaN -> 0, truncation toward zero,
/// saturation at I's limits. Computed in long double against the exact limits.
template <class I, class F>
I expected_int(F v) {
  if (std::isnan(v)) return 0;
  const long double lo = static_cast<long double>(std::numeric_limits<I>::min());
  const long double hi = static_cast<long double>(std::numeric_limits<I>::max());
  const long double t = std::trunc(static_cast<long double>(v));
  if (t <= lo) return std::numeric_limits<I>::min();
  if (t >= hi) return std::numeric_limits<I>::max();
  return static_cast<I>(t);
}

/// Floating values that stress a conversion into I: specials, the limits and
/// their neighbours, and random values over and beyond I's range.
template <class I, class F>
std::vector<F> stress_values(std::uint64_t seed, std::size_t n_random) {
  const F inf = std::numeric_limits<F>::infinity();
  const F lo = static_cast<F>(std::numeric_limits<I>::min()), hi = static_cast<F>(std::numeric_limits<I>::max());
  std::vector<F> v = {std::numeric_limits<F>::quiet_NaN(), -std::numeric_limits<F>::quiet_NaN(), inf, -inf,
                      std::numeric_limits<F>::max(), std::numeric_limits<F>::lowest(), F(0), F(-0.0), F(0.5),
                      F(-0.5), F(0.99), F(-0.99), F(1), F(-1), F(3.7), F(-3.7), lo, hi,
                      std::nextafter(lo, -inf), std::nextafter(lo, inf), std::nextafter(hi, -inf),
                      std::nextafter(hi, inf), F(1e30), F(-1e30)};
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> d(-3.0 * static_cast<double>(hi) - 10, 3.0 * static_cast<double>(hi) + 10);
  for (std::size_t i = 0; i < n_random; ++i) v.push_back(static_cast<F>(d(rng)));
  return v;
}

template <class I, class F>
void check_convert_rule(std::uint64_t seed) {
  INFO(ufunc::detail::element_name<F>() << " -> " << ufunc::detail::element_name<I>());
  for (F v : stress_values<I, F>(seed, 2000)) {
    INFO("value " << static_cast<double>(v));
    REQUIRE(ufunc::detail::convert<I>(v) == expected_int<I>(v));
  }
}

/// A float function's results into outs of integer types on target Tg.
template <class Tg, class I, class F>
void check_float_into_int_out(std::uint64_t seed) {
  INFO("target " << (std::is_same_v<Tg, ufunc::target::host> ? "host" : "device") << ", "
                 << ufunc::detail::element_name<F>() << " -> " << ufunc::detail::element_name<I>());
  const auto hv = stress_values<I, F>(seed, 1000);
  const auto n = static_cast<index_t>(hv.size());
  const auto x = ufunc::asarray<Tg>(hv);
  const auto f = ufunc::vectorize<Tg>(ident_f{}, "ident");
  auto o = ufunc::full<I, Tg>(shape{n}, I(7));
  // Refused by default, nothing written; the message names both types.
  CHECK_THROWS_AS(f(x, ufunc::out(o)), ufunc::type_error);
  const auto msg = test::message_of<ufunc::type_error>([&] { f(x, ufunc::out(o)); });
  INFO("message: " << msg);
  CHECK(test::contains(msg, "ident"));
  CHECK(test::contains(msg, ufunc::detail::element_name<F>()));
  CHECK(test::contains(msg, ufunc::detail::element_name<I>()));
  for (I v : o.to_host()) REQUIRE(v == I(7));
  // With unsafe_cast: the documented values, also through a strided (reversed) out.
  f(x, ufunc::out(o), ufunc::unsafe_cast);
  auto got = o.to_host();
  for (index_t i = 0; i < n; ++i) {
    INFO("value " << static_cast<double>(hv[static_cast<std::size_t>(i)]));
    REQUIRE(got[static_cast<std::size_t>(i)] == expected_int<I>(hv[static_cast<std::size_t>(i)]));
  }
  auto r = ufunc::full<I, Tg>(shape{n}, I(7));
  f(x, ufunc::out(r.view().sliced(0, -1, INT64_MIN, -1)), ufunc::unsafe_cast);
  got = r.to_host();
  for (index_t i = 0; i < n; ++i)
    REQUIRE(got[static_cast<std::size_t>(n - 1 - i)] == expected_int<I>(hv[static_cast<std::size_t>(i)]));
  // Reductions: max along an axis of a (n, 1) view into an int out.
  auto m = ufunc::full<I, Tg>(shape{n}, I(7));
  const auto x2 = ufunc::make_view<Tg>(x.data(), shape{n, 1}, {1, 1});
  CHECK_THROWS_AS(ufunc::max(x2, ufunc::axis(1), ufunc::out(m)), ufunc::type_error);
  for (I v : m.to_host()) REQUIRE(v == I(7));
  ufunc::max(x2, ufunc::axis(1), ufunc::out(m), ufunc::unsafe_cast);
  got = m.to_host();
  for (index_t i = 0; i < n; ++i)
    REQUIRE(got[static_cast<std::size_t>(i)] == expected_int<I>(hv[static_cast<std::size_t>(i)]));
  // An expression evaluated into an int out follows the same rule.
  auto e = ufunc::full<I, Tg>(shape{n}, I(7));
  CHECK_THROWS_AS(ufunc::evaluate(f.lazy(x), ufunc::out(e)), ufunc::type_error);
  ufunc::evaluate(f.lazy(x), ufunc::out(e), ufunc::unsafe_cast);
  CHECK(e.to_host() == o.to_host());
}

/// Casts NumPy's same_kind rule allows, with exact expected values.
template <class Tg>
void check_same_kind_allowed(std::uint64_t seed) {
  const auto hf = test::random_vector<float>(301, seed, -1e3, 1e3);
  const auto hi = test::random_vector<int>(301, seed + 1, -100, 100);
  const auto xf = ufunc::asarray<Tg>(hf);
  const auto xi = ufunc::asarray<Tg>(hi);
  const auto twice = ufunc::vectorize<Tg>(twice_f{}, "twice");
  // float -> double, int -> float, int -> int8 (same kind, narrower), int -> int64.
  auto od = ufunc::array<double, Tg>(shape{301});
  twice(xf, ufunc::out(od));
  auto of = ufunc::array<float, Tg>(shape{301});
  twice(xi, ufunc::out(of));
  auto o8 = ufunc::array<std::int8_t, Tg>(shape{301});
  twice(xi, ufunc::out(o8));
  auto o64 = ufunc::array<std::int64_t, Tg>(shape{301});
  twice(xi, ufunc::out(o64));
  const auto hd = od.to_host();
  const auto hff = of.to_host();
  const auto h8 = o8.to_host();
  const auto h64 = o64.to_host();
  for (std::size_t i = 0; i < 301; ++i) {
    REQUIRE(hd[i] == static_cast<double>(hf[i] + hf[i]));
    REQUIRE(hff[i] == static_cast<float>(2 * hi[i]));
    REQUIRE(h8[i] == static_cast<std::int8_t>(2 * hi[i]));
    REQUIRE(h64[i] == 2 * hi[i]);
  }
  // double -> float (same kind); a sum of int (int64) into an int32 out.
  const auto xd = ufunc::asarray<Tg>(std::vector<double>(hf.begin(), hf.end()));
  auto of2 = ufunc::array<float, Tg>(shape{301});
  twice(xd, ufunc::out(of2));
  const auto hf2 = of2.to_host();
  for (std::size_t i = 0; i < 301; ++i) REQUIRE(hf2[i] == static_cast<float>(2.0 * static_cast<double>(hf[i])));
  auto s32 = ufunc::array<int, Tg>(shape{1});
  ufunc::sum(xi, ufunc::out(s32));
  long long ref = 0;
  for (int v : hi) ref += v;
  CHECK(s32.to_host()[0] == ref);
  // Refused: signed into unsigned, int into bool, float into int64, the sum of
  // floats into an int, a double reduction into bool.
  auto ou = ufunc::array<unsigned, Tg>(shape{301});
  const auto msg = test::message_of<ufunc::type_error>([&] { twice(xi, ufunc::out(ou)); });
  CHECK(test::contains(msg, "int32 result"));
  CHECK(test::contains(msg, "uint32"));
  auto ob = ufunc::array<bool, Tg>(shape{301});
  CHECK_THROWS_AS(twice(xi, ufunc::out(ob)), ufunc::type_error);
  CHECK_THROWS_AS(twice(xf, ufunc::out(o64)), ufunc::type_error);
  CHECK_THROWS_AS(ufunc::sum(xf, ufunc::out(s32)), ufunc::type_error);
  auto b1 = ufunc::array<bool, Tg>(shape{1});
  CHECK_THROWS_AS(ufunc::mean(xi, ufunc::out(b1)), ufunc::type_error);
  // Opted in, they convert as C++ does where that is defined.
  twice(xi, ufunc::out(ou), ufunc::unsafe_cast);
  const auto hu = ou.to_host();
  for (std::size_t i = 0; i < 301; ++i) REQUIRE(hu[i] == static_cast<unsigned>(2 * hi[i]));
}

}  // namespace

TEST_CASE("out cast: the float -> integer conversion is NaN -> 0, truncation, saturation at the limits") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  check_convert_rule<std::int8_t, float>(seed);
  check_convert_rule<std::uint8_t, float>(seed + 1);
  check_convert_rule<std::int16_t, double>(seed + 2);
  check_convert_rule<int, float>(seed + 3);
  check_convert_rule<int, double>(seed + 4);
  check_convert_rule<unsigned, double>(seed + 5);
  check_convert_rule<std::int64_t, float>(seed + 6);
  check_convert_rule<std::int64_t, double>(seed + 7);
  check_convert_rule<std::uint64_t, double>(seed + 8);
  static_assert(ufunc::detail::same_kind_cast<float, double>() && ufunc::detail::same_kind_cast<double, float>());
  static_assert(ufunc::detail::same_kind_cast<int, float>() && ufunc::detail::same_kind_cast<std::uint8_t, std::int8_t>());
  static_assert(!ufunc::detail::same_kind_cast<float, int>() && !ufunc::detail::same_kind_cast<std::int8_t, std::uint64_t>());
  static_assert(ufunc::detail::same_kind_cast<bool, std::uint8_t>() && !ufunc::detail::same_kind_cast<std::uint8_t, bool>());
}

TEST_CASE("out cast: a float result into an integer out is refused, and defined with ufunc::unsafe_cast") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  test::for_each_target([&](auto tg) {
    using Tg = decltype(tg);
    check_float_into_int_out<Tg, int, float>(seed);
    check_float_into_int_out<Tg, std::uint8_t, float>(seed + 1);
    check_float_into_int_out<Tg, std::int64_t, double>(seed + 2);
    check_float_into_int_out<Tg, std::uint32_t, double>(seed + 3);
  });
}

TEST_CASE("out cast: NumPy's same_kind casts are allowed, the others refused unless opted in") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  test::for_each_target([&](auto tg) { check_same_kind_allowed<decltype(tg)>(seed); });
}
