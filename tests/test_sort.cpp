// ufunc::sort, argsort, topk, unique (issue 42) against the host references of
// sort_support.hpp, float and double keys: many rows of one length (CUB's
// segmented sorts, short to long segments), the per-type cases (rank 1-3,
// every axis, transposed, strided and reversed views, zero-size dims, NaNs,
// infinities and signed zeros), one long row (the host's chunked merge), typed
// errors and allocation failures. The 16-bit floats are in test_sort_half.cpp,
// bool and the integers in test_sort_ints.cpp: one unit of all of them took 576 s
// of a 16-job GPU build, and each type's sorts live in one unit only.
#include "sort_support.hpp"

using namespace sort_test;

TEST_CASE("sort: many rows of one length, short to long, floats with NaNs and signed zeros") {
  std::mt19937_64 g(test::fresh_seed());
  test::for_each_target([&](auto tg) {
    using Tg = decltype(tg);
    for (const auto& rl : {std::pair<index_t, index_t>{300, 20}, {64, 1000}, {5, 4000}, {2, 70001}, {300, 6000}})
      rows_case<Tg, float>(g, rl.first, rl.second);
    rows_case<Tg, double>(g, 7, 5000);
  });
}

TEST_CASE("sort, argsort, topk, unique: float and double keys, rank 1-3, every axis, strided views, against std references") {
  std::mt19937_64 g(test::fresh_seed());
  test::for_each_target([&](auto tg) { types_cases<decltype(tg), float, double>(g, 40); });
}

TEST_CASE("sort: one long row (the host's chunked merge) against std::stable_sort") {
  std::mt19937_64 g(test::fresh_seed());
  test::for_each_target([&](auto tg) { long_row<decltype(tg)>(g); });
}

TEST_CASE("sort: a bad axis, a 0-d input and a bad k throw typed errors naming them") {
  using host = ufunc::target::host;
  const auto x = ufunc::zeros<float, host>(ufunc::shape{3, 4});
  const auto msg = test::message_of<ufunc::shape_error>([&] { (void)ufunc::sort(x, 2); });
  CHECK(test::contains(msg, "ufunc::sort: axis 2"));
  CHECK(test::contains(msg, "2 dimensions"));
  CHECK_THROWS_AS((void)ufunc::sort(x, -3), ufunc::shape_error);
  CHECK_THROWS_AS((void)ufunc::argsort(x, ufunc::axis(5)), ufunc::shape_error);
  CHECK_THROWS_AS((void)ufunc::topk(x, 1, 2), ufunc::shape_error);
  const auto scalar = ufunc::zeros<int, host>(ufunc::shape{});
  CHECK(test::contains(test::message_of<ufunc::shape_error>([&] { (void)ufunc::sort(scalar); }), "0 dimensions"));
  CHECK(ufunc::argsort(scalar).to_host() == std::vector<ufunc::index_t>{0});  // np.argsort: 0-d as 1-D
  CHECK_THROWS_AS((void)ufunc::argsort(scalar, 1), ufunc::shape_error);
  const auto km = test::message_of<ufunc::value_error>([&] { (void)ufunc::topk(x, 5); });
  CHECK(test::contains(km, "k = 5"));
  CHECK_THROWS_AS((void)ufunc::topk(x, -1), ufunc::value_error);
  CHECK_THROWS_AS((void)ufunc::topk(x, 4, 0), ufunc::value_error);
  CHECK(ufunc::topk(x, 3, 0).values.shape() == ufunc::shape({3, 4}));
  // unique of a 0-d array: its one element, as np.unique.
  const auto u = ufunc::unique_all(scalar);
  CHECK(u.values.shape() == ufunc::shape({1}));
  CHECK(u.counts.to_host() == std::vector<ufunc::index_t>{1});
  CHECK(u.inverse_indices.shape() == ufunc::shape{});
}

TEST_CASE("sort: a refused call allocates nothing, and an allocation refused midway leaks nothing") {
  namespace alloc = ufunc::detail::testing;
  test::for_each_target([&](auto tg) {
    using Tg = decltype(tg);
    std::mt19937_64 g(test::fresh_seed());
    std::vector<float> h(600);
    for (auto& v : h) v = draw<float>(g);
    const auto base = upload<Tg>(h, {20, 30});
    const auto x = base.view().transposed();  // (30, 20), strided: every step of the plan runs
    // Bad arguments: thrown before the first allocation.
    const long long a0 = alloc::allocation_attempts();
    CHECK_THROWS_AS((void)ufunc::sort(x, 2), ufunc::shape_error);
    CHECK_THROWS_AS((void)ufunc::topk(x, 21), ufunc::value_error);
    CHECK_THROWS_AS((void)ufunc::topk(x, 3, -3), ufunc::shape_error);
    CHECK(alloc::allocation_attempts() == a0);
    const std::vector<std::function<void()>> calls = {
        [&] { (void)ufunc::sort(x, 0); }, [&] { (void)ufunc::argsort(x, 0); },
        [&] { (void)ufunc::topk(x, 4, 0, false); }, [&] { (void)ufunc::unique_all(x); }};
    for (std::size_t c = 0; c < calls.size(); ++c) {
      CAPTURE(c);
      calls[c]();  // warm what the library caches
      const long long live0 = alloc::live_allocations(), a = alloc::allocation_attempts();
      calls[c]();
      const long long n = alloc::allocation_attempts() - a;
      CHECK(alloc::live_allocations() == live0);
      for (long long k = 1; k <= n; ++k) {
        CAPTURE(k);
        bool oom = false;
        alloc::set_allocation_limit(k);
        try {
          calls[c]();
        } catch (const ufunc::out_of_memory&) {
          oom = true;
        }
        alloc::clear_allocation_limit();
        ufunc::synchronize();
        CHECK(oom);
        CHECK(alloc::live_allocations() == live0);
      }
    }
  });
}
