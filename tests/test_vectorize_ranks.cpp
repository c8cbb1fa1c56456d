// ufunc::vectorize with many inputs and ranks: 1 to 8 inputs (arrays and scalars
// in every position), rank-0 arrays, ranks 1 to 8 with random broadcast patterns
// and rank-8 permuted views (see test_vectorize.cpp for the reference scheme). A
// file of its own: each arity instantiates its own kernels, so this is the
// heaviest vectorize translation unit to compile.
#include "vectorize_support.hpp"

TEST_CASE("vectorize: one to eight inputs, arrays and scalars in every position") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  auto f1 = ufunc::vectorize([] UFUNC_HD (int a) { return 3 * a + 1; });
  auto r1 = [](int a) { return 3 * a + 1; };
  auto f2 = ufunc::vectorize([] UFUNC_HD (int a, int b) { return a - 2 * b; });
  auto r2 = [](int a, int b) { return a - 2 * b; };
  auto f3 = ufunc::vectorize([] UFUNC_HD (int a, int b, int c) { return a - 2 * b + 3 * c; });
  auto r3 = [](int a, int b, int c) { return a - 2 * b + 3 * c; };
  auto f4 = ufunc::vectorize([] UFUNC_HD (int a, int b, int c, int d) { return a - 2 * b + 3 * c - 4 * d; });
  auto r4 = [](int a, int b, int c, int d) { return a - 2 * b + 3 * c - 4 * d; };
  auto f5 = ufunc::vectorize([] UFUNC_HD (int a, int b, int c, int d, int e) { return a - 2 * b + 3 * c - 4 * d + 5 * e; });
  auto r5 = [](int a, int b, int c, int d, int e) { return a - 2 * b + 3 * c - 4 * d + 5 * e; };
  auto f6 = ufunc::vectorize(
      [] UFUNC_HD (int a, int b, int c, int d, int e, int f) { return a - 2 * b + 3 * c - 4 * d + 5 * e - 6 * f; });
  auto r6 = [](int a, int b, int c, int d, int e, int f) { return a - 2 * b + 3 * c - 4 * d + 5 * e - 6 * f; };
  auto f7 = ufunc::vectorize([] UFUNC_HD (int a, int b, int c, int d, int e, int f, int g) {
    return a - 2 * b + 3 * c - 4 * d + 5 * e - 6 * f + 7 * g;
  });
  auto r7 = [](int a, int b, int c, int d, int e, int f, int g) {
    return a - 2 * b + 3 * c - 4 * d + 5 * e - 6 * f + 7 * g;
  };
  auto f8 = ufunc::vectorize([] UFUNC_HD (int a, int b, int c, int d, int e, int f, int g, int h) {
    return a - 2 * b + 3 * c - 4 * d + 5 * e - 6 * f + 7 * g - 8 * h;
  });
  auto r8 = [](int a, int b, int c, int d, int e, int f, int g, int h) {
    return a - 2 * b + 3 * c - 4 * d + 5 * e - 6 * f + 7 * g - 8 * h;
  };
  // All arrays (scalar position out of range), then one scalar at a middle or last position.
  check_inputs<9>(f1, r1, seed, std::make_index_sequence<1>{});
  check_inputs<0>(f1, r1, seed, std::make_index_sequence<1>{});
  check_inputs<9>(f2, r2, seed, std::make_index_sequence<2>{});
  check_inputs<1>(f2, r2, seed, std::make_index_sequence<2>{});
  check_inputs<9>(f3, r3, seed, std::make_index_sequence<3>{});
  check_inputs<1>(f3, r3, seed, std::make_index_sequence<3>{});
  check_inputs<9>(f4, r4, seed, std::make_index_sequence<4>{});
  check_inputs<3>(f4, r4, seed, std::make_index_sequence<4>{});
  check_inputs<9>(f5, r5, seed, std::make_index_sequence<5>{});
  check_inputs<2>(f5, r5, seed, std::make_index_sequence<5>{});
  check_inputs<9>(f6, r6, seed, std::make_index_sequence<6>{});
  check_inputs<0>(f6, r6, seed, std::make_index_sequence<6>{});
  check_inputs<9>(f7, r7, seed, std::make_index_sequence<7>{});
  check_inputs<6>(f7, r7, seed, std::make_index_sequence<7>{});
  check_inputs<9>(f8, r8, seed, std::make_index_sequence<8>{});
  check_inputs<4>(f8, r8, seed, std::make_index_sequence<8>{});
  check_inputs<7>(f8, r8, seed, std::make_index_sequence<8>{});
}

TEST_CASE("vectorize: rank-0 arrays and scalars") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const auto hv = test::random_vector<float>(6, seed);
  auto sub = ufunc::vectorize([] UFUNC_HD (float x, float y) { return x - y; });

  auto s = sub(hv[0], hv[1]);  // scalars only: a rank-0 result
  static_assert(std::is_same_v<decltype(s), ufunc::array<float>>);
  CHECK(s.ndim() == 0);
  CHECK(s.shape() == shape{});
  CHECK(s.to_host() == std::vector<float>{hv[0] - hv[1]});

  const auto x0 = ufunc::to_device(std::vector<float>{hv[2]}, shape{});
  auto s2 = sub(x0, hv[3]);
  CHECK(s2.shape() == shape{});
  CHECK(s2.to_host() == std::vector<float>{hv[2] - hv[3]});

  const std::vector<float> h5(hv.begin() + 1, hv.end());
  auto v = sub(ufunc::to_device(h5), x0);
  CHECK(v.shape() == shape{5});
  std::vector<float> w5(5);
  for (std::size_t i = 0; i < 5; ++i) w5[i] = h5[i] - hv[2];
  test::expect_equal(v.to_host(), w5);

  auto o = ufunc::full<float>(shape{}, -1.0f);
  auto ret = sub(x0, x0, ufunc::out(o));
  CHECK(ret.shape() == shape{});
  CHECK(o.to_host() == std::vector<float>{0.0f});

  // Scalars only, into an out of shape (2,3): every element gets the value.
  auto o23 = ufunc::full<float>(shape{2, 3}, -1.0f);
  sub(hv[4], hv[5], ufunc::out(o23));
  CHECK(o23.to_host() == std::vector<float>(6, hv[4] - hv[5]));

  // All-size-1 shapes of several ranks are not rank 0 but hold one element.
  auto one = sub(ufunc::to_device(std::vector<float>{hv[0]}, shape{1, 1, 1}), x0);
  CHECK(one.shape() == shape{1, 1, 1});
  CHECK(one.to_host() == std::vector<float>{hv[0] - hv[2]});
}

TEST_CASE("vectorize: ranks 1 to 8 with random broadcast patterns") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  auto f = ufunc::vectorize([] UFUNC_HD (int a, int b, int c) { return a - 3 * b + 5 * c; });
  auto fr = [](int a, int b, int c) { return a - 3 * b + 5 * c; };
  for (int rank = 1; rank <= 8; ++rank) {
    for (int rep = 0; rep < 4; ++rep) {
      std::vector<index_t> target(static_cast<std::size_t>(rank));
      for (auto& d : target) d = 1 + static_cast<index_t>(rng() % (rank <= 4 ? 7 : 3));
      std::vector<std::vector<index_t>> dims(3);
      for (auto& d : dims) {
        const std::size_t drop = static_cast<std::size_t>(rng() % static_cast<unsigned>(rank + 1));
        d.assign(target.begin() + static_cast<std::ptrdiff_t>(drop), target.end());
        for (auto& x : d)
          if (rng() % 3 == 0) x = 1;
      }
      const auto out = bcast_dims(dims);
      INFO("rank " << rank << ": " << test::dims_str(dims[0]) << " " << test::dims_str(dims[1]) << " "
                   << test::dims_str(dims[2]));
      std::vector<std::vector<int>> h;
      for (int k = 0; k < 3; ++k)
        h.push_back(test::random_vector<int>(nelem(dims[static_cast<std::size_t>(k)]), rng(), -1000, 1000));
      auto r = f(dev(h[0], dims[0]), dev(h[1], dims[1]), dev(h[2], dims[2]));
      CHECK(r.shape() == test::shape_of(out));
      test::expect_equal(r.to_host(), reference<int>(out, fr, H(h[0], dims[0]), H(h[1], dims[1]), H(h[2], dims[2])));
    }
  }
}

TEST_CASE("vectorize: rank-8 permuted views as input and as out") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  auto f = ufunc::vectorize([] UFUNC_HD (double a, double b) { return a - b; });
  for (int rep = 0; rep < 4; ++rep) {
    std::vector<index_t> dims(8);
    for (auto& d : dims) d = 1 + static_cast<index_t>(rng() % 3);
    std::vector<int> axes(8);
    std::iota(axes.begin(), axes.end(), 0);
    std::shuffle(axes.begin(), axes.end(), rng);
    const auto st = test::row_major(dims);
    ref_operand perm;
    for (int k : axes) {
      perm.dims.push_back(dims[static_cast<std::size_t>(k)]);
      perm.strides.push_back(st[static_cast<std::size_t>(k)]);
    }
    INFO("dims " << test::dims_str(dims) << " permuted to " << test::dims_str(perm.dims));
    const auto ha = test::random_vector<double>(nelem(dims), rng());
    const auto hb = test::random_vector<double>(nelem(dims), rng());
    auto a = dev(ha, dims);
    const auto b = dev(hb, perm.dims);
    const auto want = reference<double>(perm.dims, [](double x, double y) { return x - y; }, H(ha, perm), H(hb, perm.dims));

    auto r = f(a.view().permuted(axes), b);
    CHECK(r.shape() == test::shape_of(perm.dims));
    test::expect_equal(r.to_host(), want);

    // Out through the same permutation of a fresh buffer: buffer[offset of p] = want[p].
    auto buf = ufunc::zeros<double>(test::shape_of(dims));
    f(a.view().permuted(axes), b, ufunc::out(buf.view().permuted(axes)));
    const auto got = buf.to_host();
    std::vector<double> wbuf(got.size());
    for (index_t i = 0; i < test::count_of(perm.dims); ++i)
      wbuf[static_cast<std::size_t>(test::bcast_offset(test::unravel(i, perm.dims), perm))] = want[static_cast<std::size_t>(i)];
    test::expect_equal(got, wbuf);
  }
}
