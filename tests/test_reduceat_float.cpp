// f.reduceat over the floating types (float, double, __half, __nv_bfloat16, and a
// custom lambda on float) against the reference loop of reduceat_support.hpp,
// with the bounds test_reduceat.cpp states; split from it so that neither unit
// is the GPU suite's longest build (the 16-bit floats' segmented reductions are
// the largest kernels of the reduceat tests).
#include "reduceat_support.hpp"

namespace {

using namespace reduceat_test;

template <class Tg>
void floating_types(std::uint64_t seed) {
  std::mt19937_64 g(seed);
  all_ops<Tg, float>(g, 60);
  all_ops<Tg, double>(g, 40);
  all_ops<Tg, __half>(g, 40);
  all_ops<Tg, __nv_bfloat16>(g, 40);
  custom_lambda_cases<Tg, float>(g, 40);
}

}  // namespace

TEST_CASE("f.reduceat: NumPy's rule on random data, every axis, view, index order and op; floating types") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  test::for_each_target([&](auto tg) { floating_types<decltype(tg)>(seed); });
}
