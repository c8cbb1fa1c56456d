// Reductions over whole arrays, part one (part two: test_reduce_more.cpp):
// reduce/map_reduce, the conveniences, identities and their absence, integer
// widening, accumulator types, fused maps, NaN. References are computed by index
// math over host copies, in double.
#include "reduce_support.hpp"

#include <memory>

TEST_CASE("reduce: whole-array sum, prod, min, max, mean against a double reference, many sizes") {
  for (index_t n : {1, 2, 3, 7, 31, 32, 33, 1000, 4097, 65536, 100003, 1 << 20}) {
    const auto seed = test::fresh_seed();
    INFO("n = " << n << ", seed " << seed);
    const auto h = test::random_vector<float>(static_cast<std::size_t>(n), seed, -2.0, 2.0);
    const auto x = ufunc::to_device(h);
    const double ref = dsum(h), absref = dabs_sum(h);
    const float s = ufunc::sum(x);
    static_assert(std::is_same_v<decltype(ufunc::sum(x)), float>);
    CHECK(std::fabs(s - ref) <= tree_bound(h.size(), absref));
    CHECK(ufunc::min(x) == *std::min_element(h.begin(), h.end()));
    CHECK(ufunc::max(x) == *std::max_element(h.begin(), h.end()));
    const float m = ufunc::mean(x);
    static_assert(std::is_same_v<decltype(ufunc::mean(x)), float>);
    CHECK(std::fabs(m - ref / n) <= tree_bound(h.size(), absref) / n + 1e-7);
    // A product near 1: factors in [0.999, 1.001].
    std::vector<double> hp(static_cast<std::size_t>(std::min<index_t>(n, 4097)));
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> d(0.999, 1.001);
    double pref = 1;
    for (auto& v : hp) pref *= (v = d(rng));
    CHECK(ufunc::prod(ufunc::to_device(hp)) == doctest::Approx(pref).epsilon(1e-12));
  }
}

TEST_CASE("reduce: integer and logical ops with their identities") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  for (index_t n : {1, 5, 1000, 70001}) {
    auto h = test::random_vector<int>(static_cast<std::size_t>(n), seed, -1000, 1000);
    const auto x = ufunc::to_device(h);
    long long s = 0;
    int mn = h[0], mx = h[0], band = ~0, bor = 0, bxor = 0;
    for (int v : h) s += v, mn = std::min(mn, v), mx = std::max(mx, v), band &= v, bor |= v, bxor ^= v;
    CHECK(ufunc::sum(x) == s);
    CHECK(ufunc::reduce(ufunc::minimum{})(x) == mn);
    CHECK(ufunc::reduce(ufunc::maximum{})(x) == mx);
    CHECK(ufunc::reduce(ufunc::bit_and{})(x) == band);
    CHECK(ufunc::reduce(ufunc::bit_or{})(x) == bor);
    CHECK(ufunc::reduce(ufunc::bit_xor{})(x) == bxor);
    // Sum of int in int64 (accumulator override).
    static_assert(std::is_same_v<decltype(ufunc::reduce<long long>(ufunc::plus{})(x)), long long>);
    CHECK(ufunc::reduce<long long>(ufunc::plus{})(x) == s);
    const double mref = static_cast<double>(s) / static_cast<double>(n);
    static_assert(std::is_same_v<decltype(ufunc::mean(x)), double>);
    CHECK(ufunc::mean(x) == doctest::Approx(mref).epsilon(1e-12));
    std::vector<char> flags(static_cast<std::size_t>(n), 1);
    const auto all_true = ufunc::to_device(flags);
    CHECK(ufunc::reduce(ufunc::logical_and{})(all_true) == true);
    CHECK(ufunc::reduce(ufunc::logical_or{})(all_true) == true);
    flags[static_cast<std::size_t>(n / 2)] = 0;
    CHECK(ufunc::reduce(ufunc::logical_and{})(ufunc::to_device(flags)) == false);
    std::fill(flags.begin(), flags.end(), 0);
    CHECK(ufunc::reduce(ufunc::logical_or{})(ufunc::to_device(flags)) == false);
  }
}

TEST_CASE("reduce: a custom op without init reduces the elements themselves (no init = 0)") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  for (index_t n : {1, 2, 100, 300001}) {
    const auto h = test::random_vector<float>(static_cast<std::size_t>(n), seed, -100.0, -1.0);  // all negative
    const auto x = ufunc::to_device(h);
    const auto big = ufunc::reduce(max_f{});
    CHECK(big(x) == *std::max_element(h.begin(), h.end()));
    // With init, the init takes part once (NumPy's `initial`).
    CHECK(ufunc::reduce(max_f{}, -0.5f)(x) == -0.5f);
    CHECK(ufunc::reduce(max_f{}, -1000.0f)(x) == *std::max_element(h.begin(), h.end()));
    // Along an axis too: (n, 3) -> max per column.
    std::vector<float> m(static_cast<std::size_t>(n) * 3);
    for (std::size_t i = 0; i < m.size(); ++i) m[i] = h[i / 3] - static_cast<float>(i % 3);
    const auto r = big(ufunc::to_device(m, {n, 3}), ufunc::axis(0)).to_host();
    const float hm = *std::max_element(h.begin(), h.end());
    CHECK(r == std::vector<float>{hm, hm - 1, hm - 2});
  }
  // Empty input: no identity -> value_error; with init or identity -> that value.
  const auto empty = ufunc::empty<float>({0});
  CHECK_THROWS_AS(ufunc::reduce(max_f{})(empty), ufunc::value_error);
  CHECK_THROWS_AS(ufunc::reduce(max_f{})(empty), std::invalid_argument);
  CHECK_THROWS_AS(ufunc::min(empty), ufunc::value_error);
  CHECK_THROWS_AS(ufunc::argmax(empty), ufunc::value_error);
  CHECK(ufunc::reduce(max_f{}, 7.0f)(empty) == 7.0f);
  CHECK(ufunc::sum(empty) == 0.0f);
  CHECK(ufunc::prod(empty) == 1.0f);
  CHECK(ufunc::reduce(ufunc::minimum{})(empty) == std::numeric_limits<float>::infinity());
  CHECK(std::isnan(ufunc::mean(empty)));
  // Empty reduced axis of a (3, 0) array: value per output, or value_error.
  const auto e2 = ufunc::empty<float>({3, 0});
  CHECK(ufunc::sum(e2, ufunc::axis(1)).to_host() == std::vector<float>{0, 0, 0});
  CHECK(ufunc::sum(e2, ufunc::axis(0)).shape() == shape(0));
  CHECK_THROWS_AS(ufunc::max(e2, ufunc::axis(1)), ufunc::value_error);
  CHECK(ufunc::max(e2, ufunc::axis(0)).shape() == shape(0));  // nothing to reduce into: no error
}

namespace {
/// sum and prod of T against int64/uint64 loops over the host data: whole array,
/// each axis, and through ufunc::out; values chosen so that T's own range (and,
/// for 32-bit T, 2^31) is passed.
template <class T, class Tg>
void check_widened_sum_prod(std::uint64_t seed) {
  using W = std::conditional_t<std::is_signed_v<T> || std::is_same_v<T, bool>, std::int64_t, std::uint64_t>;
  INFO("type " << test::type_name<T>() << " seed " << seed);
  static_assert(std::is_same_v<ufunc::detail::default_acc_t<ufunc::plus, T>, W>);
  const double hi = static_cast<double>(std::numeric_limits<T>::max());
  const double lo = hi / 2;  // mostly large: the total passes T's range
  const index_t rows = 7, cols = 1003;
  const auto h = test::random_vector<T>(static_cast<std::size_t>(rows * cols), seed, std::is_signed_v<T> ? -hi / 4 : lo, hi);
  const auto x = test::make<Tg>(h, {rows, cols});
  W total = 0;
  std::vector<W> by_row(static_cast<std::size_t>(rows), 0), by_col(static_cast<std::size_t>(cols), 0);
  for (index_t r = 0; r < rows; ++r)
    for (index_t c = 0; c < cols; ++c) {
      const W v = static_cast<W>(h[static_cast<std::size_t>(r * cols + c)]);
      total += v, by_row[static_cast<std::size_t>(r)] += v, by_col[static_cast<std::size_t>(c)] += v;
    }
  static_assert(std::is_same_v<decltype(ufunc::sum(x)), W>);
  CHECK(ufunc::sum(x) == total);
  CHECK(ufunc::reduce(ufunc::plus{})(x) == total);
  CHECK(ufunc::sum(x.view().transposed()) == total);  // the strided path
  const auto sr = ufunc::sum(x, ufunc::axis(1));
  static_assert(std::is_same_v<typename std::decay_t<decltype(sr)>::value_type, W>);
  CHECK(sr.to_host() == by_row);
  CHECK(ufunc::sum(x, ufunc::axis(0)).to_host() == by_col);
  auto o = ufunc::array<W, Tg>(shape{rows});
  ufunc::sum(x, ufunc::axis(-1), ufunc::out(o));
  CHECK(o.to_host() == by_row);
  // Products of small values: 30 factors pass the range of every 8/16/32-bit T.
  const auto hp = test::random_vector<T>(4 * 30, seed + 1, std::is_signed_v<T> ? -3 : 0, 3);
  const auto p = test::make<Tg>(hp, {4, 30});
  std::vector<W> prow(4, 1);
  for (std::size_t i = 0; i < hp.size(); ++i) prow[i / 30] *= static_cast<W>(hp[i]);
  static_assert(std::is_same_v<decltype(ufunc::prod(p)), W>);
  CHECK(ufunc::prod(p, ufunc::axis(1)).to_host() == prow);
  CHECK(ufunc::prod(p.view().sliced(0, 2, 3)) == prow[2]);
  CHECK(ufunc::reduce(ufunc::multiplies{})(p.view().sliced(0, 1, 2)) == prow[1]);
  // The caller's accumulator still decides.
  static_assert(std::is_same_v<decltype(ufunc::reduce<T>(ufunc::plus{})(x)), T>);
}
}  // namespace

TEST_CASE("reduce: integer sums and products widen to int64/uint64 as NumPy's (no overflow past 2^31)") {
  const auto seed = test::fresh_seed();
  test::for_each_target([&](auto tg) {
    using Tg = decltype(tg);
    check_widened_sum_prod<std::int8_t, Tg>(seed);
    check_widened_sum_prod<std::uint8_t, Tg>(seed + 1);
    check_widened_sum_prod<std::int16_t, Tg>(seed + 2);
    check_widened_sum_prod<std::uint16_t, Tg>(seed + 3);
    check_widened_sum_prod<std::int32_t, Tg>(seed + 4);
    check_widened_sum_prod<std::uint32_t, Tg>(seed + 5);
  });
  // bool (no std::vector<bool> storage: a plain buffer) sums to an int64 count.
  const std::size_t n = 70001;
  std::unique_ptr<bool[]> b(new bool[n]);
  std::mt19937_64 rng(seed + 6);
  std::int64_t count = 0;
  for (std::size_t i = 0; i < n; ++i) count += (b[i] = (rng() & 1) != 0);
  const auto hb = ufunc::make_view<ufunc::target::host>(static_cast<const bool*>(b.get()), shape{static_cast<index_t>(n)});
  static_assert(std::is_same_v<decltype(ufunc::sum(hb)), std::int64_t>);
  CHECK(ufunc::sum(hb) == count);
  CHECK(ufunc::sum(ufunc::to_device(b.get(), shape{static_cast<index_t>(n)})) == count);
  static_assert(std::is_same_v<decltype(ufunc::prod(hb)), std::int64_t>);
  CHECK(ufunc::prod(hb.sliced(0, 0, 3)) == static_cast<std::int64_t>(b[0] && b[1] && b[2]));
  // 64-bit integers and floats keep their type.
  static_assert(std::is_same_v<ufunc::detail::default_acc_t<ufunc::plus, std::int64_t>, std::int64_t>);
  static_assert(std::is_same_v<ufunc::detail::default_acc_t<ufunc::multiplies, std::uint64_t>, std::uint64_t>);
  static_assert(std::is_same_v<ufunc::detail::default_acc_t<ufunc::plus, float>, float>);
  static_assert(std::is_same_v<ufunc::detail::default_acc_t<ufunc::maximum, std::int8_t>, std::int8_t>);
}

TEST_CASE("reduce: the accumulator type follows the op, or the one asked for") {
  // Float input accumulated in double: 1 + many tiny terms that float would drop.
  std::vector<float> h(100000, 1e-8f);
  h[0] = 1.0f;
  const auto x = ufunc::to_device(h);
  double ref = 0;
  for (float v : h) ref += v;
  const auto d = ufunc::reduce<double>(ufunc::plus{})(x);
  static_assert(std::is_same_v<decltype(d), const double>);
  CHECK(d == doctest::Approx(ref).epsilon(1e-12));
  CHECK(ufunc::sum(x) == doctest::Approx(ref).epsilon(1e-6));
  // The op's result type on the mapped values: a map to double accumulates in
  // double; an init of another type does not change the accumulator.
  static_assert(std::is_same_v<decltype(ufunc::map_reduce(sq_diff{}, ufunc::plus{})(x, 0.0f)), double>);
  static_assert(std::is_same_v<decltype(ufunc::reduce(ufunc::multiplies{}, 1.0)(x)), float>);
}

TEST_CASE("map_reduce: abs-sum and dot products are fused maps over broadcast inputs") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  for (index_t n : {1, 3, 1000, 262147}) {
    const auto h = test::random_vector<float>(static_cast<std::size_t>(n), seed);
    const auto h2 = test::random_vector<float>(static_cast<std::size_t>(n), seed + 1);
    const auto x = ufunc::to_device(h), y = ufunc::to_device(h2);
    const auto abs_sum = ufunc::map_reduce(abs_f{}, ufunc::plus{});
    CHECK(std::fabs(abs_sum(x) - dabs_sum(h)) <= tree_bound(h.size(), dabs_sum(h)));
    const auto dot = ufunc::map_reduce(mul_f{}, ufunc::plus{});
    double dref = 0, dabs = 0;
    for (std::size_t i = 0; i < h.size(); ++i) dref += double(h[i]) * h2[i], dabs += std::fabs(double(h[i]) * h2[i]);
    CHECK(std::fabs(dot(x, y) - dref) <= tree_bound(h.size(), dabs) + 4 * std::ldexp(1.0, -24) * dabs);
    // A scalar input broadcasts: sum((x - 0.5)^2) in double.
    const auto ssq = ufunc::map_reduce(sq_diff{}, ufunc::plus{});
    double sref = 0;
    for (float v : h) sref += double(v - 0.5f) * double(v - 0.5f);
    CHECK(ssq(x, 0.5f) == doctest::Approx(sref).epsilon(1e-10));
  }
  // Broadcasting (4,1) with (3,): sum over the (4,3) products, and per row.
  const std::vector<float> a{1, 2, 3, 4}, b{10, 20, 30};
  const auto A = ufunc::to_device(a, {4, 1}), B = ufunc::to_device(b);
  const auto dot = ufunc::map_reduce(mul_f{}, ufunc::plus{});
  CHECK(dot(A, B) == 600.0f);
  CHECK(dot(A, B, ufunc::axis(1)).to_host() == std::vector<float>{60, 120, 180, 240});
  CHECK(dot(A, B, ufunc::axis(0)).to_host() == std::vector<float>{100, 200, 300});
  CHECK_THROWS_AS(dot(B, ufunc::to_device(std::vector<float>{1, 2})), ufunc::shape_error);
}

TEST_CASE("reduce: min/max/argmin/argmax propagate NaN as NumPy does") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (index_t n : {5, 1000, 100001}) {
    std::vector<float> h(static_cast<std::size_t>(n));
    std::iota(h.begin(), h.end(), 0.0f);
    h[static_cast<std::size_t>(n / 3)] = nan;
    h[static_cast<std::size_t>(n / 2)] = nan;
    const auto x = ufunc::to_device(h);
    CHECK(std::isnan(ufunc::min(x)));
    CHECK(std::isnan(ufunc::max(x)));
    CHECK(ufunc::argmin(x) == n / 3);  // the first NaN
    CHECK(ufunc::argmax(x) == n / 3);
    CHECK(std::isnan(ufunc::sum(x)));
  }
  // Ties: the lowest index wins.
  std::vector<float> t(50000, 1.0f);
  t[123] = t[40000] = 5.0f;
  t[77] = t[30000] = -5.0f;
  CHECK(ufunc::argmax(ufunc::to_device(t)) == 123);
  CHECK(ufunc::argmin(ufunc::to_device(t)) == 77);
}

