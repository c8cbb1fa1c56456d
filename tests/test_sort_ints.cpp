// ufunc::sort, argsort, topk, unique (issue 42) on bool and integer keys: many
// rows of one length (int16); every function, rank 1-3, every axis (negative
// too), transposed, strided and reversed views, zero-size dims, rows of one
// element, many ties and the extreme values; against the host references of
// sort_support.hpp, on every target.
#include "sort_support.hpp"

using namespace sort_test;

TEST_CASE("sort: many rows of one length, int16") {
  std::mt19937_64 g(test::fresh_seed());
  test::for_each_target([&](auto tg) { rows_case<decltype(tg), std::int16_t>(g, 9, 3000); });
}

TEST_CASE("sort, argsort, topk, unique: bool and integer keys, rank 1-3, every axis, strided views, against std references") {
  std::mt19937_64 g(test::fresh_seed());
  test::for_each_target([&](auto tg) {
    types_cases<decltype(tg), bool, std::int8_t, std::int16_t, std::uint16_t, std::int32_t, std::uint32_t, std::int64_t>(g, 40);
  });
}
