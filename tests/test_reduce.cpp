// Reductions over whole arrays, part one (then test_reduce_widen.cpp and
// test_reduce_more.cpp): reduce/map_reduce, the conveniences, identities and
// their absence, custom ops, accumulator types, fused maps, NaN. References are
// computed by index math over host copies, in double. (The widening case is a
// file of its own for the GPU suite's build time: its kernels compile on a core
// of their own.)
#include "reduce_support.hpp"

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

// The CUDA backend's whole reductions end in one-block kernels of 1,024 threads
// (the input of at most one tile, or the first pass's partials, one per block):
// lengths on both sides of a warp, of CUB's first-pass block (256) and of a tile
// (4,096 items of 4 bytes: ints, or floats in packs of four), and 2^22 + 4,097
// items, whose first pass leaves more partials than the block has threads
// (1,026 tiles of ints, 2,050 of float packs), for a sum from its identity, a
// user's init, and an op without one (its init inside the data's range, so the
// items decide the result at some lengths and the init at others).
TEST_CASE("reduce: whole reductions at the one-block kernels' limits") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  for (index_t items : {0, 1, 3, 31, 33, 255, 256, 257, 4095, 4096, 4097, 4 * 4096 + 5, (1 << 22) + 4097}) {
    INFO("items " << items);
    // int: one item an element.
    if (items > 0) {
      const auto hi = test::random_vector<int>(static_cast<std::size_t>(items), seed + 1, -1000, 1000);
      const auto xi = ufunc::to_device(hi);
      long long s = 0;
      int mx = hi[0];
      for (int v : hi) s += v, mx = std::max(mx, v);
      CHECK(ufunc::sum(xi) == s);
      CHECK(ufunc::reduce(ufunc::plus{}, 17)(xi) == static_cast<int>(s + 17));
      CHECK(ufunc::reduce(ufunc::maximum{})(xi) == mx);
    }
    // float: four elements an item, plus a tail of up to three.
    for (index_t n : {4 * items, 4 * items + 3}) {
      if (n == 0) continue;
      INFO("n " << n);
      const auto h = test::random_vector<float>(static_cast<std::size_t>(n), seed, -2.0, 2.0);
      const auto x = ufunc::to_device(h);
      CHECK(std::fabs(ufunc::sum(x) - dsum(h)) <= tree_bound(h.size(), dabs_sum(h)));
      CHECK(std::fabs(ufunc::reduce(ufunc::plus{}, 5.0f)(x) - (dsum(h) + 5)) <=
            tree_bound(h.size(), dabs_sum(h) + 5));
      CHECK(ufunc::reduce(max_f{})(x) == *std::max_element(h.begin(), h.end()));
      CHECK(ufunc::reduce(max_f{}, 1.0f)(x) == std::max(1.0f, *std::max_element(h.begin(), h.end())));
    }
  }
}
