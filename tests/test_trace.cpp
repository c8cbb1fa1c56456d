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

// Issue 38: a call's trailing arguments are parsed once (detail::read_controls),
// whatever path it takes: an expression fused into a call, a reduction or
// evaluate does not parse them again, and a sharded expression's shards run the
// expression without a parse each. (Streamed chunks: test_streaming_arg.cpp.)
TEST_CASE("trace: a call parses its trailing arguments once, expressions and sharded expressions included") {
  namespace tr = ufunc::detail::testing;
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const auto hx = test::random_vector<float>(12, seed);
  const auto x = ufunc::asarray<H>(hx, ufunc::shape{3, 4});
  const auto mul = ufunc::vectorize<H>([](float a, float b) { return a * b; }, "mul");
  const auto add = ufunc::vectorize<H>([](float a, float b) { return a + b; }, "add");
  auto y = ufunc::empty<float, H>(ufunc::shape{3, 4});
  auto reads = [&](auto&& call) {
    const long before = tr::controls_reads().load();
    call();
    return tr::controls_reads().load() - before;
  };
  CHECK(reads([&] { (void)mul(x, 2.0f); }) == 1);
  CHECK(reads([&] { (void)ufunc::evaluate(add.lazy(mul.lazy(x, 2.0f), x)); }) == 1);
  CHECK(reads([&] { (void)ufunc::evaluate(mul.lazy(x, 2.0f), ufunc::out(y)); }) == 1);
  for (std::size_t i = 0; i < 12; ++i) CHECK(y.data()[i] == hx[i] * 2.0f);  // y was fresh (poisoned) memory
  CHECK(reads([&] { (void)add(mul.lazy(x, 2.0f), x, ufunc::out(y)); }) == 1);
  for (std::size_t i = 0; i < 12; ++i) CHECK(y.data()[i] == hx[i] * 2.0f + hx[i]);
  CHECK(reads([&] { (void)ufunc::sum(mul.lazy(x, 2.0f)); }) == 1);
  CHECK(reads([&] { (void)ufunc::sum(add.lazy(mul.lazy(x, 2.0f), x), ufunc::axis(1)); }) == 1);
  // The last call's result (a fused axis sum), against a host loop.
  const auto r = ufunc::sum(add.lazy(mul.lazy(x, 2.0f), x), ufunc::axis(1)).to_host();
  for (std::size_t i = 0; i < 3; ++i) {
    float ref = 0.f;
    for (std::size_t j = 0; j < 4; ++j) ref += hx[i * 4 + j] * 2.0f + hx[i * 4 + j];
    CHECK(r[i] == doctest::Approx(ref).epsilon(1e-5));
  }
  // A sharded expression over three host shards: its controls (out, unsafe_cast)
  // are known from their types; no shard parses them again (it was 2 a shard).
  const auto sx = ufunc::shard(x, ufunc::device_set{0, 1, 2});
  auto sy = ufunc::empty<float, H>(ufunc::shape{3, 4}, ufunc::device_set{0, 1, 2});
  CHECK(reads([&] { (void)ufunc::evaluate(add.lazy(mul.lazy(sx, 2.0f), sx), ufunc::out(sy)); }) == 0);
  const auto hy = sy.to_host();
  for (std::size_t i = 0; i < 12; ++i) CHECK(hy[i] == hx[i] * 2.0f + hx[i]);
}
