// Streaming host data through the device, part three (split from
// test_streaming_more.cpp for the GPU suite's build time): mean; each streamed
// call compared with the same call in memory (out(...) and initial values:
// test_streaming_out.cpp).
#include "streaming_support.hpp"

using namespace streaming_test;

TEST_CASE_FIXTURE(reduce_init_data, "streaming: mean of floats and ints streams too") {
  INFO("seed " << seed);

  SUBCASE("mean of floats: whole within the sum bound, kept rows bit for bit") {
    const float want = ufunc::mean(d);
    CHECK(std::fabs(double(ufunc::mean(h)) - want) <= tol / double(m * n) + 1e-7 * std::fabs(want));
    CHECK(std::fabs(double(ufunc::mean(p)) - want) <= tol / double(m * n) + 1e-7 * std::fabs(want));
    const auto w0 = ufunc::mean(d, ufunc::axis(0)).to_host();
    const auto g0 = ufunc::mean(p, ufunc::axis(0)).to_host();
    REQUIRE(g0.size() == w0.size());
    for (std::size_t j = 0; j < w0.size(); ++j) CHECK(std::fabs(g0[j] - w0[j]) <= tol / double(m));
    CHECK(same_bits(ufunc::mean(p, ufunc::axis(1)).to_host(), ufunc::mean(d, ufunc::axis(1)).to_host()));
  }
  SUBCASE("mean of ints accumulates exactly in double: bit for bit along any axis") {
    const double want = ufunc::mean(di);
    CHECK(want == double(all) / double(m * n));
    CHECK(ufunc::mean(hi) == want);
    CHECK(ufunc::mean(pi) == want);
    const auto g0 = ufunc::mean(pi, ufunc::axis(0)).to_host();
    const auto g1 = ufunc::mean(pi, ufunc::axis(1), ufunc::keepdims).to_host();
    REQUIRE(g0.size() == col.size());
    REQUIRE(g1.size() == row.size());
    for (std::size_t j = 0; j < col.size(); ++j) CHECK(g0[j] == double(col[j]) / double(m));
    for (std::size_t i = 0; i < row.size(); ++i) CHECK(g1[i] == double(row[i]) / double(n));
  }
  // Inputs are only read.
  CHECK(same_bits(p.to_host(), h));
  CHECK(same_bits(pi.to_host(), hi));
}
