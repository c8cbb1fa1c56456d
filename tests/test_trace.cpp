// NVTX ranges (detail/trace.hpp, issue 39): every ufunc call, reduction,
// evaluate, matmul, transpose, parallel_for and array copy opens one range named
// after it, in call order, on the calling thread. The test build records the
// names (UFUNC_TESTING) beside the NVTX push; the results are checked too, so a
// call that skipped its work would not pass.
#include "test_support.hpp"

#include <string>
#include <vector>

namespace {
using H = ufunc::target::host;
}

TEST_CASE("trace: calls, reductions, evaluate, matmul, transpose, parallel_for and copies open ranges named after them") {
  namespace tr = ufunc::detail::testing;
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const auto hx = test::random_vector<float>(4, seed);
  const auto x = ufunc::asarray<H>(hx, ufunc::shape{2, 2});
  const auto mul = ufunc::vectorize<H>([](float a, float b) { return a * b; }, "mul");
  std::vector<float> seen(4, 0.f);
  tr::record_ranges(true);
  const auto y = mul(x, 2.0f);
  const float s = ufunc::sum(y);
  const auto e = ufunc::evaluate(mul.lazy(x, 3.0f));
  const auto m = ufunc::matmul(x, x);
  const auto t = ufunc::transpose(x);
  ufunc::parallel_for<H>(4, [&](std::size_t i) { seen[i] = hx[i] + 1.0f; });
  const auto hy = y.to_host();
  const auto c = ufunc::asarray<H>(hx);
  const auto names = tr::recorded_ranges();
  tr::record_ranges(false);
  std::string got;
  for (const auto& n : names) got += n + " ";
  INFO("ranges: " << got);
  // evaluate of a one-node expression runs as that ufunc's call: its range nests inside.
  CHECK(names == std::vector<std::string>{"mul", "sum", "evaluate", "mul", "matmul", "transpose", "parallel_for",
                                          "to_host", "asarray"});
  // What the calls computed (the references: host loops).
  for (std::size_t i = 0; i < 4; ++i) {
    CHECK(hy[i] == hx[i] * 2.0f);
    CHECK(e.data()[i] == hx[i] * 3.0f);
    CHECK(seen[i] == hx[i] + 1.0f);
    CHECK(c.data()[i] == hx[i]);
  }
  CHECK(s == doctest::Approx((hx[0] + hx[1] + hx[2] + hx[3]) * 2.0f).epsilon(1e-6));
  for (std::size_t i = 0; i < 2; ++i)
    for (std::size_t j = 0; j < 2; ++j) {
      CHECK(t.data()[i * 2 + j] == hx[j * 2 + i]);
      CHECK(m.data()[i * 2 + j] == doctest::Approx(hx[i * 2] * hx[j] + hx[i * 2 + 1] * hx[2 + j]).epsilon(1e-6));
    }
  // Nothing is recorded once recording stops (the ranges themselves still open).
  (void)mul(x, 1.0f);
  CHECK(tr::recorded_ranges().size() == names.size());
}
