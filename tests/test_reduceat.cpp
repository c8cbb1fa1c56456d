// f.reduceat (NumPy's ufunc.reduceat) against an independent loop over NumPy's
// rule: for each index i, the reduction of x[indices[i]:indices[i+1]] along the
// axis when indices[i] < indices[i+1], else x[indices[i]]; the last index
// reduces to the end. Fresh random data each run: ranks 1-3, every axis
// (negative too), contiguous, strided, transposed and reversed views, sorted,
// repeated and decreasing indices of int, int64 and uint32 (some strided),
// zero-size kept dims and empty index lists; plus, multiplies, maximum,
// minimum and a custom lambda (no identity) over bool, 16-bit, 32- and 64-bit
// integers, float, double, __half and __nv_bfloat16. Integers exactly; float
// sums within (ceil(L / 128) + ceil(log2 L) + 18) eps sum|x| of the exact sum
// of a segment of L elements on the host (its pairwise bound for L <= 2^14, (16
// + log2(L / 128)) eps, below it) and eps |S| + 32 eps sum|x| on the GPU (sums
// carried wide, rounded once); products within (L + 2) eps |p|. Long
// segments (the host's chunked path): within (log2 L + 32) eps sum|x|, the
// same bits at 1 and 4 threads. This file: bool and the integers, the error
// cases and the long sums; test_reduceat_float.cpp the floating types.
#include "reduceat_support.hpp"

#include <omp.h>

namespace {

using namespace reduceat_test;

template <class Tg>
void integer_types(std::uint64_t seed) {
  std::mt19937_64 g(seed);
  all_ops<Tg, bool>(g, 20);
  all_ops<Tg, std::int16_t>(g, 40);
  all_ops<Tg, std::uint16_t>(g, 40);
  all_ops<Tg, int>(g, 40);
  all_ops<Tg, std::int64_t>(g, 40);
  custom_lambda_cases<Tg, int>(g, 40);
}

template <class Tg>
void error_cases() {
  const auto add = ufunc::vectorize<Tg>(ufunc::plus{}, "add");
  const std::vector<float> h{1, 2, 3, 4, 5, 6};
  const auto x = ufunc::asarray<Tg>(h, shape(2, 3));
  const auto idx = [](std::vector<int> v) { return ufunc::asarray<Tg>(v, shape(static_cast<index_t>(v.size()))); };
  // An index outside [0, n): NumPy's IndexError, here shape_error naming it and its position.
  auto msg = test::message_of<ufunc::shape_error>([&] { (void)add.reduceat(x, idx({0, 2, 3}), ufunc::axis(1)); });
  CHECK(test::contains(msg, "add.reduceat: index 3 (position 2) is out of bounds for axis 1 of size 3"));
  msg = test::message_of<ufunc::shape_error>([&] { (void)add.reduceat(x, idx({1, -1})); });
  CHECK(test::contains(msg, "index -1 (position 1) is out of bounds for axis 0 of size 2"));
  const auto huge = ufunc::asarray<Tg>(std::vector<std::uint64_t>{0, ~std::uint64_t(0)}, shape(2));
  CHECK_THROWS_AS((void)add.reduceat(x, huge, ufunc::axis(-1)), ufunc::shape_error);
  // An axis of 0 elements has no valid index; an empty index list is fine there.
  const auto e = ufunc::zeros<float, Tg>({3, 0});
  CHECK_THROWS_AS((void)add.reduceat(e, idx({0}), ufunc::axis(1)), ufunc::shape_error);
  CHECK(add.reduceat(e, idx({}), ufunc::axis(1)).shape() == shape(3, 0));
  // Bad axes, a 0-d x, 2-D indices.
  CHECK_THROWS_AS((void)add.reduceat(x, idx({0}), ufunc::axis(2)), ufunc::shape_error);
  CHECK_THROWS_AS((void)add.reduceat(x, idx({0}), ufunc::axis(-3)), ufunc::shape_error);
  CHECK_THROWS_AS((void)add.reduceat(ufunc::zeros<float, Tg>({}), idx({0})), ufunc::shape_error);
  CHECK_THROWS_AS((void)add.reduceat(x, ufunc::zeros<int, Tg>({1, 1})), ufunc::shape_error);
  // NumPy's documented example: np.add.reduceat(np.arange(8), [0,4, 1,5, 2,6, 3,7])[::2]
  // = [6, 10, 14, 18]; the whole result [6, 4, 10, 5, 14, 6, 18, 7].
  std::vector<int> ar(8);
  for (int i = 0; i < 8; ++i) ar[static_cast<std::size_t>(i)] = i;
  const auto r = add.reduceat(ufunc::asarray<Tg>(ar, shape(8)), idx({0, 4, 1, 5, 2, 6, 3, 7}));
  CHECK(r.to_host() == std::vector<std::int64_t>{6, 4, 10, 5, 14, 6, 18, 7});
  // And the 2-D one: x = np.linspace(0, 15, 16).reshape(4,4); np.add.reduceat(x, [0, 3, 1, 2, 0]).
  std::vector<double> l(16);
  for (int i = 0; i < 16; ++i) l[static_cast<std::size_t>(i)] = i;
  const auto x4 = ufunc::asarray<Tg>(l, shape(4, 4));
  CHECK(add.reduceat(x4, idx({0, 3, 1, 2, 0})).to_host() ==
        std::vector<double>{12, 15, 18, 21, 12, 13, 14, 15, 4, 5, 6, 7, 8, 9, 10, 11, 24, 28, 32, 36});
  // np.multiply.reduceat(x, [0, 3], axis=1)
  CHECK(ufunc::vectorize<Tg>(ufunc::multiplies{}).reduceat(x4, idx({0, 3}), ufunc::axis(1)).to_host() ==
        std::vector<double>{0, 3, 120, 7, 720, 11, 2184, 15});
}

}  // namespace

TEST_CASE("f.reduceat: NumPy's rule on random data, every axis, view, index order and op; bool and integers") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  test::for_each_target([&](auto tg) { integer_types<decltype(tg)>(seed); });
}

TEST_CASE("f.reduceat: indices out of range, bad axes and ranks throw shape_error; NumPy's examples") {
  test::for_each_target([&](auto tg) { error_cases<decltype(tg)>(); });
}

TEST_CASE("f.reduceat: long float sums within (log2 L + 32) eps sum|x|, the same bits on any thread count") {
  // 1-D, 2^20 floats: 37 segments (few outputs, each longer than the host's
  // chunk: the chunked path), one segment of all of them, and 300 segments (one
  // pairwise reduction each). Every sum within the library's bound
  // (docs/reductions.md), and bit for bit the same at 1 and 4 threads.
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  using host = ufunc::target::host;
  const index_t n = index_t(1) << 20;
  const auto h = test::random_vector<float>(static_cast<std::size_t>(n), seed, -1, 1);
  const auto x = ufunc::asarray<host>(h, shape(n));
  std::mt19937_64 g(seed);
  const auto f = ufunc::vectorize<host>(ufunc::plus{});
  for (const index_t m : {index_t(37), index_t(1), index_t(300)}) {
    auto ind = random_indices(g, n, m);
    std::sort(ind.begin(), ind.end());
    ind[0] = 0;
    const auto iv = ufunc::asarray<host>(ind, shape(m));
    const int had = omp_get_max_threads();
    omp_set_num_threads(1);
    const auto r = f.reduceat(x, iv).to_host();
    omp_set_num_threads(4);
    const auto r4 = f.reduceat(x, iv).to_host();
    omp_set_num_threads(had);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < ind.size(); ++i) {
      const auto [b, e] = segment(ind, i, n);
      double s = 0, mag = 0;
      for (index_t j = b; j < e; ++j) s += h[static_cast<std::size_t>(j)], mag += std::fabs(h[static_cast<std::size_t>(j)]);
      bad += !(std::fabs(r[i] - s) <= (std::log2(static_cast<double>(e - b)) + 32) * 0x1p-24 * mag);
    }
    INFO("segments " << m);
    CHECK(bad == 0);
    CHECK(std::memcmp(r.data(), r4.data(), r.size() * sizeof(float)) == 0);
  }
}
