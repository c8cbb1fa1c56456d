// Reductions over whole arrays, part one b (split from test_reduce.cpp for the
// GPU suite's build time): integer sums and products widen as NumPy's.
// References are computed by index math over host copies, in double.
#include "reduce_support.hpp"

#include <memory>

namespace {
/// sum and prod of T against int64/uint64 loops over the host data: whole array,
/// each axis, and through ufunc::out; values chosen so that T's own range (and,
/// for 32-bit T, 2^31) is passed.
template <class T, class Tg>
void check_widened_sum_prod(std::uint64_t seed) {
  using W = std::conditional_t<std::is_signed_v<T> || std::is_same_v<T, bool>, std::int64_t, std::uint64_t>;
  INFO("type " << test::type_name<T>() << " seed " << seed);
  static_assert(std::is_same_v<ufunc::detail::default_acc_t<ufunc::plus, T>, W>);
  const double hi = static_cast<double>(std::numeric_limits<T>::max());
  const double lo = hi / 2;  // mostly large: the total passes T's range
  const index_t rows = 7, cols = 1003;
  const auto h = test::random_vector<T>(static_cast<std::size_t>(rows * cols), seed, std::is_signed_v<T> ? -hi / 4 : lo, hi);
  const auto x = test::make<Tg>(h, {rows, cols});
  W total = 0;
  std::vector<W> by_row(static_cast<std::size_t>(rows), 0), by_col(static_cast<std::size_t>(cols), 0);
  for (index_t r = 0; r < rows; ++r)
    for (index_t c = 0; c < cols; ++c) {
      const W v = static_cast<W>(h[static_cast<std::size_t>(r * cols + c)]);
      total += v, by_row[static_cast<std::size_t>(r)] += v, by_col[static_cast<std::size_t>(c)] += v;
    }
  static_assert(std::is_same_v<decltype(ufunc::sum(x)), W>);
  CHECK(ufunc::sum(x) == total);
  CHECK(ufunc::reduce(ufunc::plus{})(x) == total);
  CHECK(ufunc::sum(x.view().transposed()) == total);  // the strided path
  const auto sr = ufunc::sum(x, ufunc::axis(1));
  static_assert(std::is_same_v<typename std::decay_t<decltype(sr)>::value_type, W>);
  CHECK(sr.to_host() == by_row);
  CHECK(ufunc::sum(x, ufunc::axis(0)).to_host() == by_col);
  auto o = ufunc::array<W, Tg>(shape{rows});
  ufunc::sum(x, ufunc::axis(-1), ufunc::out(o));
  CHECK(o.to_host() == by_row);
  // Products of small values: 30 factors pass the range of every 8/16/32-bit T.
  const auto hp = test::random_vector<T>(4 * 30, seed + 1, std::is_signed_v<T> ? -3 : 0, 3);
  const auto p = test::make<Tg>(hp, {4, 30});
  std::vector<W> prow(4, 1);
  for (std::size_t i = 0; i < hp.size(); ++i) prow[i / 30] *= static_cast<W>(hp[i]);
  static_assert(std::is_same_v<decltype(ufunc::prod(p)), W>);
  CHECK(ufunc::prod(p, ufunc::axis(1)).to_host() == prow);
  CHECK(ufunc::prod(p.view().sliced(0, 2, 3)) == prow[2]);
  CHECK(ufunc::reduce(ufunc::multiplies{})(p.view().sliced(0, 1, 2)) == prow[1]);
  // The caller's accumulator still decides.
  static_assert(std::is_same_v<decltype(ufunc::reduce<T>(ufunc::plus{})(x)), T>);
}
}  // namespace

TEST_CASE("reduce: integer sums and products widen to int64/uint64 as NumPy's (no overflow past 2^31)") {
  const auto seed = test::fresh_seed();
  test::for_each_target([&](auto tg) {
    using Tg = decltype(tg);
    check_widened_sum_prod<std::int8_t, Tg>(seed);
    check_widened_sum_prod<std::uint8_t, Tg>(seed + 1);
    check_widened_sum_prod<std::int16_t, Tg>(seed + 2);
    check_widened_sum_prod<std::uint16_t, Tg>(seed + 3);
    check_widened_sum_prod<std::int32_t, Tg>(seed + 4);
    check_widened_sum_prod<std::uint32_t, Tg>(seed + 5);
  });
  // bool (no std::vector<bool> storage: a plain buffer) sums to an int64 count.
  const std::size_t n = 70001;
  std::unique_ptr<bool[]> b(new bool[n]);
  std::mt19937_64 rng(seed + 6);
  std::int64_t count = 0;
  for (std::size_t i = 0; i < n; ++i) count += (b[i] = (rng() & 1) != 0);
  const auto hb = ufunc::make_view<ufunc::target::host>(static_cast<const bool*>(b.get()), shape{static_cast<index_t>(n)});
  static_assert(std::is_same_v<decltype(ufunc::sum(hb)), std::int64_t>);
  CHECK(ufunc::sum(hb) == count);
  CHECK(ufunc::sum(ufunc::to_device(b.get(), shape{static_cast<index_t>(n)})) == count);
  static_assert(std::is_same_v<decltype(ufunc::prod(hb)), std::int64_t>);
  CHECK(ufunc::prod(hb.sliced(0, 0, 3)) == static_cast<std::int64_t>(b[0] && b[1] && b[2]));
  // 64-bit integers and floats keep their type.
  static_assert(std::is_same_v<ufunc::detail::default_acc_t<ufunc::plus, std::int64_t>, std::int64_t>);
  static_assert(std::is_same_v<ufunc::detail::default_acc_t<ufunc::multiplies, std::uint64_t>, std::uint64_t>);
  static_assert(std::is_same_v<ufunc::detail::default_acc_t<ufunc::plus, float>, float>);
  static_assert(std::is_same_v<ufunc::detail::default_acc_t<ufunc::maximum, std::int8_t>, std::int8_t>);
}
