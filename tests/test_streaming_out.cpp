// Streaming host data through the device, part four (split from
// test_streaming_more.cpp for the GPU suite's build time): reductions into
// out(...) and with an explicit initial value; each streamed call compared with
// exact integer sums or the same call in memory.
#include "streaming_support.hpp"

using namespace streaming_test;

TEST_CASE_FIXTURE(reduce_init_data, "streaming: out(...) and an explicit initial value stream too") {
  INFO("seed " << seed);

  SUBCASE("out(...): a device out of a wider type, a one-element out, and refusals before any work") {
    ufunc::array<long long> o0(shape{n});
    ufunc::sum(pi, ufunc::axis(0), ufunc::out(o0));
    const auto g0 = o0.to_host();
    for (std::size_t j = 0; j < col.size(); ++j) CHECK(g0[j] == col[j]);
    ufunc::array<double> o1(shape{m});
    ufunc::sum(p, ufunc::axis(1), ufunc::out(o1));
    const auto w1 = ufunc::sum(d, ufunc::axis(1)).to_host();
    const auto g1 = o1.to_host();
    REQUIRE(g1.size() == w1.size());
    for (std::size_t i = 0; i < w1.size(); ++i) CHECK(g1[i] == double(w1[i]));  // kept rows: same engine
    ufunc::array<double> one(shape{1});
    ufunc::mean(pi, ufunc::out(one));
    CHECK(one.to_host()[0] == double(all) / double(m * n));
    // float -> int is not same_kind; a wrong shape: refused, out untouched.
    ufunc::array<int> bad = ufunc::full<int>(shape{n}, 17);
    CHECK_THROWS_AS(ufunc::sum(p, ufunc::axis(0), ufunc::out(bad)), ufunc::type_error);
    ufunc::array<float> wrong = ufunc::full<float>(shape{m}, 17.0f);
    CHECK_THROWS_AS(ufunc::sum(p, ufunc::axis(0), ufunc::out(wrong)), ufunc::shape_error);
    CHECK(bad.to_host() == std::vector<int>(static_cast<std::size_t>(n), 17));
    CHECK(wrong.to_host() == std::vector<float>(static_cast<std::size_t>(m), 17.0f));
    // unsafe_cast allows float -> int, as in memory (the sums are exact integers).
    const auto pf = pinned_of(std::vector<float>(hi.begin(), hi.end()), s);
    ufunc::sum(pf, ufunc::axis(0), ufunc::out(bad), ufunc::unsafe_cast);
    const auto gb = bad.to_host();
    for (std::size_t j = 0; j < col.size(); ++j) CHECK(gb[j] == static_cast<int>(col[j]));
  }
  SUBCASE("an initial value is applied once, also across chunks of the reduced axis") {
    const auto sum_from = ufunc::reduce<long long>(ufunc::plus{}, 100000);
    const auto g0 = sum_from(pi, ufunc::axis(0)).to_host();
    REQUIRE(g0.size() == col.size());
    for (std::size_t j = 0; j < col.size(); ++j) CHECK(g0[j] == col[j] + 100000);
    CHECK(sum_from(hi) == all + 100000);
    const auto g1 = sum_from(pi, ufunc::axis(1)).to_host();
    for (std::size_t i = 0; i < row.size(); ++i) CHECK(g1[i] == row[i] + 100000);
    // A custom op (no identity) with an initial value: the largest of init and
    // the elements (999 is above most columns' largest element, not all).
    const auto max_from = ufunc::reduce([] UFUNC_HD (int a, int b) { return a > b ? a : b; }, 999);
    const auto gm = max_from(pi, ufunc::axis(0)).to_host();
    REQUIRE(gm.size() == col.size());
    for (index_t j = 0; j < n; ++j) {
      int w = 999;
      for (index_t i = 0; i < m; ++i) w = std::max(w, hi[static_cast<std::size_t>(i * n + j)]);
      CHECK(gm[static_cast<std::size_t>(j)] == w);
    }
  }
  // Inputs are only read.
  CHECK(same_bits(p.to_host(), h));
  CHECK(same_bits(pi.to_host(), hi));
}
