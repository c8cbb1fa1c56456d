// Reductions over whole arrays: reduce/map_reduce, the conveniences, identities
// and their absence, accumulator types, NaN, float accuracy, host target and
// streams. References are computed by index math over host copies, in double.
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

namespace {
template <class T>
bool is_nan_value(T v) {
  if constexpr (std::is_floating_point_v<T>)
    return std::isnan(v);
  else
    return false;
}

// The first position of the smallest (Max: largest) value, the first NaN winning:
// NumPy's argmin/argmax, by a serial loop.
template <bool Max, class T>
index_t serial_arg(const T* p, index_t n, index_t stride = 1) {
  index_t best = 0;
  for (index_t i = 0; i < n; ++i) {
    const T v = p[i * stride], b = p[best * stride];
    if (is_nan_value(b)) break;
    if (is_nan_value(v) || (Max ? b < v : v < b)) best = i;
  }
  return best;
}

// Values from a small set (many ties), a few NaNs for floating types, as T.
template <class T>
std::vector<T> tied_values(std::size_t n, std::mt19937_64& rng, bool nans) {
  std::uniform_int_distribution<int> d(-20, 20);
  std::vector<T> h(n);
  for (auto& v : h) v = static_cast<T>(d(rng));
  if constexpr (std::is_floating_point_v<T>)
    if (nans && n > 0)
      for (int k = 0; k < 2; ++k) h[std::uniform_int_distribution<std::size_t>(0, n - 1)(rng)] = std::numeric_limits<T>::quiet_NaN();
  return h;
}

template <class T>
void check_arg_reductions(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (index_t n : {1, 3, 4, 5, 8, 33, 1000, 4097, 65541, (1 << 20) + 3}) {
    for (bool nans : {false, true}) {
      // One extreme value planted late, so that it improves on the ties (and
      // one early, so that nothing later does).
      for (int plant = 0; plant < 3; ++plant) {
        auto h = tied_values<T>(static_cast<std::size_t>(n) + 1, rng, nans);
        if (plant > 0) {
          const auto at = plant == 1 ? h.size() - 2 : h.size() / 7;
          h[at] = static_cast<T>(30), h[h.size() - 1 - at] = static_cast<T>(-30);
        }
        INFO("n = " << n << ", nans " << nans << ", plant " << plant);
        const auto x = ufunc::to_device(h);
        // Whole array, and the same data one element in (not 16-byte aligned).
        CHECK(ufunc::argmax(x.view().sliced(0, 0, n)) == serial_arg<true>(h.data(), n));
        CHECK(ufunc::argmin(x.view().sliced(0, 0, n)) == serial_arg<false>(h.data(), n));
        CHECK(ufunc::argmax(x.view().sliced(0, 1, n + 1)) == serial_arg<true>(h.data() + 1, n));
        CHECK(ufunc::argmin(x.view().sliced(0, 1, n + 1)) == serial_arg<false>(h.data() + 1, n));
      }
    }
  }
  // Rows of several lengths (the row kernels' block and group paths) and columns.
  for (index_t cols : {4, 12, 64, 1000, 5000}) {
    const index_t rows = std::max<index_t>(3, (1 << 18) / cols);
    const auto h = tied_values<T>(static_cast<std::size_t>(rows * cols), rng, true);
    const auto x = ufunc::to_device(h, {rows, cols});
    INFO("rows " << rows << ", cols " << cols);
    const auto amax = ufunc::argmax(x, ufunc::axis(1)).to_host();
    const auto amin = ufunc::argmin(x, ufunc::axis(1)).to_host();
    const auto cmax = ufunc::argmax(x, ufunc::axis(0)).to_host();
    bool rows_ok = true, cols_ok = true;
    for (index_t r = 0; r < rows; ++r)
      rows_ok &= amax[r] == serial_arg<true>(h.data() + r * cols, cols) &&
                 amin[r] == serial_arg<false>(h.data() + r * cols, cols);
    for (index_t c = 0; c < cols; ++c) cols_ok &= cmax[c] == serial_arg<true>(h.data() + c, rows, cols);
    CHECK(rows_ok);
    CHECK(cols_ok);
  }
}
}  // namespace

TEST_CASE("reduce: argmin/argmax against a serial loop: ties, NaNs, planted extremes, every size and type") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  check_arg_reductions<float>(seed);
  check_arg_reductions<double>(seed + 1);
  check_arg_reductions<int>(seed + 2);
  check_arg_reductions<std::int8_t>(seed + 3);
}

TEST_CASE("reduce: float sums use a tree order: error like log N, not N (2^24 values)") {
  const std::size_t n = std::size_t(1) << 24;
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  // Mean 1.5: the running sum passes 2^24 two thirds of the way, after which float
  // spacing is 2 and a serial loop rounds nearly every term (1 < x < 2) up to 2:
  // millions off, where any tree order stays within the bound.
  std::normal_distribution<float> d(1.5f, 0.25f);
  std::vector<float> h(n);
  for (auto& v : h) v = d(rng);
  const double ref = dsum(h), bound = tree_bound(n, dabs_sum(h));
  float serial = 0;
  for (float v : h) serial += v;
  INFO("reference " << ref << ", serial float loop " << serial << ", bound " << bound);
  CHECK(std::fabs(serial - ref) > bound);  // the bound tells a serial order from a tree
  const float s = ufunc::sum(ufunc::to_device(h));
  INFO("ufunc::sum " << s << ", error " << std::fabs(s - ref));
  CHECK(std::fabs(s - ref) <= bound);
  auto hx = ufunc::asarray<ufunc::target::host>(h);
  CHECK(std::fabs(ufunc::sum(hx) - ref) <= bound);
}

TEST_CASE("reduce: host arrays reduce on the host target in every build; std::vector inputs") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const auto h = test::random_vector<float>(3000, seed);
  const auto hx = ufunc::asarray<ufunc::target::host>(h, {30, 100});
  const auto r = ufunc::sum(hx, ufunc::axis(1));
  static_assert(std::is_same_v<decltype(r), const ufunc::array<float, ufunc::target::host>>);
  const auto g = groups(h, test::contiguous({30, 100}), {30, 100}, {false, true});
  for (std::size_t o = 0; o < 30; ++o) CHECK(std::fabs(r.data()[o] - dsum(g[o])) <= tree_bound(100, dabs_sum(g[o])));
  CHECK(ufunc::max(h) == *std::max_element(h.begin(), h.end()));  // std::vector input
  const auto dot = ufunc::map_reduce(mul_f{}, ufunc::plus{});
  double dref = 0;
  for (float v : h) dref += double(v) * v;
  CHECK(dot(h, h) == doctest::Approx(dref).epsilon(1e-5));
}

TEST_CASE("reduce: a stream argument orders the work on that stream") {
  const auto h = test::random_vector<float>(100000, test::fresh_seed());
  ufunc::stream_ref s;
#if defined(UFUNC_BACKEND_CUDA)
  cudaStream_t cs;
  REQUIRE(cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking) == cudaSuccess);
  s = cs;
#endif
  {
    const auto x = ufunc::to_device(h, {1000, 100}, s);
    auto r = ufunc::sum(x, ufunc::axis(0), s);
    auto r0 = ufunc::empty<float>(shape{}, s);
    ufunc::sum(x, ufunc::out(r0), s);
    const float whole = ufunc::sum(x, s);
    s.synchronize();
    CHECK(std::fabs(r0.to_host()[0] - whole) <= 1e-3f * std::fabs(whole) + 1e-2f);
    const auto hr = r.to_host();
    const auto g = groups(h, test::contiguous({1000, 100}), {1000, 100}, {true, false});
    for (std::size_t o = 0; o < 100; ++o) CHECK(std::fabs(hr[o] - dsum(g[o])) <= tree_bound(1000, dabs_sum(g[o])));
  }
#if defined(UFUNC_BACKEND_CUDA)
  cudaStreamSynchronize(cs);
  cudaStreamDestroy(cs);
#endif
}


namespace {
/// NumPy's float32 pairwise sum (numpy/_core/src/umath/loops_utils.h.src) of n
/// elements at stride `st`, written here from its source: the accuracy the
/// library must reach on the same data.
float numpy_pairwise(const float* x, index_t n, index_t st) {
  if (n < 8) {
    float r = -0.0f;
    for (index_t i = 0; i < n; ++i) r += x[i * st];
    return r;
  }
  if (n <= 128) {
    float r[8];
    for (int k = 0; k < 8; ++k) r[k] = x[k * st];
    index_t i = 8;
    for (; i < n - n % 8; i += 8)
      for (int k = 0; k < 8; ++k) r[k] += x[(i + k) * st];
    float res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) res += x[i * st];
    return res;
  }
  index_t n2 = n / 2;
  n2 -= n2 % 8;
  return numpy_pairwise(x, n2, st) + numpy_pairwise(x + n2 * st, n - n2, st);
}

/// One group's sum against a double reference: within the pairwise bound
/// 2 * log2(n) * eps * sum|x| always; on the host target also within twice the
/// error of NumPy's pairwise order on the same elements (or 8 eps sum|x|, below
/// which orders differ by luck only). `serial_ok`: the CUDA column kernel's runs
/// are serial per thread; there it must beat NumPy's own axis-0 order, a serial
/// loop over the rows.
void check_sum_error(float got, const float* x, index_t n, index_t st, bool host, bool serial_ok) {
  double ref = 0, abs_sum = 0;
  float serial = 0;
  for (index_t i = 0; i < n; ++i) ref += x[i * st], abs_sum += std::fabs(x[i * st]), serial += x[i * st];
  const double eps = std::ldexp(1.0, -24);
  const double bound = 2 * std::max(1.0, std::log2(static_cast<double>(n))) * eps * abs_sum;
  const double err = std::fabs(static_cast<double>(got) - ref);
  const double err_np = std::fabs(static_cast<double>(numpy_pairwise(x, n, st)) - ref);
  INFO("n " << n << ": got " << got << " error " << err << ", NumPy's pairwise error " << err_np << ", bound " << bound
            << ", serial error " << std::fabs(serial - ref));
  CHECK(err_np <= bound);  // the reference itself holds the bound
  if (serial_ok)
    CHECK(err <= std::max(bound, std::fabs(static_cast<double>(serial) - ref)));
  else
    CHECK(err <= bound);
  if (host) CHECK(err <= std::max(2 * err_np, 8 * eps * abs_sum));
}

template <class Tg>
void check_float_sum_accuracy(std::uint64_t seed) {
  constexpr bool host = std::is_same_v<Tg, ufunc::target::host>;
  INFO("target " << (host ? "host" : "device") << " seed " << seed);
  std::mt19937_64 rng(seed);
  for (index_t n : {index_t(1000), index_t(12344), (index_t(1) << 20) + 4, index_t(1) << 22}) {
    for (int data = 0; data < 3; ++data) {
      INFO("n " << n << " data " << data << " (0: 0.1f each, 1: uniform [0,1), 2: normal(1.5, 0.25))");
      std::vector<float> h(static_cast<std::size_t>(n));
      std::uniform_real_distribution<float> u(0.0f, 1.0f);
      std::normal_distribution<float> g(1.5f, 0.25f);
      for (auto& v : h) v = data == 0 ? 0.1f : data == 1 ? u(rng) : g(rng);
      const auto x = ufunc::asarray<Tg>(h);
      check_sum_error(ufunc::sum(x), h.data(), n, 1, host, false);
      // Rows (4, n/4) along axis 1 and columns (n/4, 4) along axis 0.
      const index_t q = n / 4;
      const auto x2 = ufunc::make_view<Tg>(x.data(), shape{4, q});
      const auto by_row = ufunc::sum(x2, ufunc::axis(1)).to_host();
      for (index_t r = 0; r < 4; ++r) check_sum_error(by_row[static_cast<std::size_t>(r)], h.data() + r * q, q, 1, host, false);
      const auto xc = ufunc::make_view<Tg>(x.data(), shape{q, 4});
      const auto by_col = ufunc::sum(xc, ufunc::axis(0)).to_host();
      for (index_t c = 0; c < 4; ++c) check_sum_error(by_col[static_cast<std::size_t>(c)], h.data() + c, q, 4, host, !host);
    }
  }
}
}  // namespace

TEST_CASE("reduce: float sums are as accurate as NumPy's pairwise sums (whole, rows, columns; up to 2^22)") {
  // Before: 2^22 x 0.1f summed to 419431.06 on the host (NumPy 419430.47, exact
  // 419430.41): serial leaves of 128, and columns summed serially.
  const auto seed = test::fresh_seed();
  test::for_each_target([&](auto tg) { check_float_sum_accuracy<decltype(tg)>(seed); });
}
