// ufunc::sort, argsort, topk, unique (issue 42) on __half and __nv_bfloat16
// keys (sorted through float): many rows of one length, short to long; every
// function, rank 1-3, every axis (negative too), transposed, strided and
// reversed views, zero-size dims, NaNs (either sign), infinities and signed
// zeros; against the host references of sort_support.hpp, on every target.
#include "sort_support.hpp"

using namespace sort_test;

TEST_CASE("sort: many rows of one length, short to long, 16-bit floats") {
  std::mt19937_64 g(test::fresh_seed());
  test::for_each_target([&](auto tg) {
    using Tg = decltype(tg);
    for (const auto& rl : {std::pair<index_t, index_t>{300, 20}, {64, 1000}, {5, 4000}, {2, 70001}})
      rows_case<Tg, __half>(g, rl.first, rl.second);
    rows_case<Tg, __nv_bfloat16>(g, 40, 300);
  });
}

TEST_CASE("sort, argsort, topk, unique: 16-bit float keys, rank 1-3, every axis, strided views, against std references") {
  std::mt19937_64 g(test::fresh_seed());
  test::for_each_target([&](auto tg) { types_cases<decltype(tg), __half, __nv_bfloat16>(g, 40); });
}
