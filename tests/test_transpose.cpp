// transpose (transpose.hpp): every registered variant of the build's device
// target and the host target, every element size (1, 2, 4, 8, 12 and 16 bytes)
// at edge sizes, a large ragged case, N-d permutations, negative axes, views,
// `out` and the errors, on fresh random data with outputs poisoned first
// (UFUNC_POISON_ALLOCATIONS), compared exactly with numpy.transpose by index
// math on the host.
#include "test_support.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

using test::make;
using ufunc::index_t;
using ufunc::shape;

namespace {

using dims_t = std::vector<index_t>;

struct alignas(16) q16 {  // a 16-byte element
  std::uint32_t w[4];
  bool operator==(const q16& o) const { return std::equal(w, w + 4, o.w); }
};
struct rgb32 {  // a 12-byte element (copied as three 4-byte words)
  float c[3];
  bool operator==(const rgb32& o) const { return std::memcmp(c, o.c, sizeof c) == 0; }
};

template <class T>
std::vector<T> random_elems(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(n);
  auto* bytes = reinterpret_cast<unsigned char*>(v.data());
  for (std::size_t i = 0; i < n * sizeof(T); ++i) bytes[i] = static_cast<unsigned char>(rng() >> 13);
  if constexpr (std::is_floating_point_v<T>)  // no NaNs: they would not compare equal
    for (auto& x : v)
      if (std::isnan(x)) x = 1;
  return v;
}

/// numpy.transpose on host data: result[idx] = x[idx permuted back].
template <class T>
std::vector<T> ref_transpose(const std::vector<T>& x, const dims_t& d, const std::vector<int>& axes) {
  dims_t od;
  for (int a : axes) od.push_back(d[static_cast<std::size_t>(a)]);
  const auto xs = test::row_major(d);
  std::vector<T> r(x.size());
  for (index_t i = 0; i < test::count_of(od); ++i) {
    const auto idx = test::unravel(i, od);
    index_t off = 0;
    for (std::size_t kk = 0; kk < axes.size(); ++kk) off += idx[kk] * xs[static_cast<std::size_t>(axes[kk])];
    r[static_cast<std::size_t>(i)] = x[static_cast<std::size_t>(off)];
  }
  return r;
}

template <class T>
bool all_equal(const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!(a[i] == b[i])) return false;
  return true;
}

template <class Tg, class T>
void check_transpose_2d(index_t rows, index_t cols) {
  const auto seed = test::fresh_seed();
  const auto hx = random_elems<T>(static_cast<std::size_t>(rows * cols), seed);
  const auto x = make<Tg>(hx, {rows, cols});
  const auto ref = ref_transpose(hx, {rows, cols}, {1, 0});
  for (auto v : ufunc::transpose_variants<Tg>()) {
    INFO("variant " << ufunc::to_string(v) << ", " << rows << " x " << cols << ", element size " << sizeof(T)
                    << ", seed " << seed);
    const auto y = ufunc::transpose(x, v);
    CHECK(y.shape() == shape{cols, rows});
    CHECK(all_equal(y.to_host(), ref));
  }
}

template <class Tg, class T>
void check_transpose_sizes() {
  const std::vector<std::array<index_t, 2>> sizes = {{1, 1},   {1, 100}, {100, 1}, {31, 33}, {32, 32},
                                                     {33, 31}, {63, 65}, {64, 64}, {65, 63}, {127, 129},
                                                     {3, 1000}, {257, 130}};
  for (const auto& s : sizes) check_transpose_2d<Tg, T>(s[0], s[1]);
}

}  // namespace

TEST_CASE("transpose: every variant and element size (1, 2, 4, 8, 16 and 12 bytes) at edge sizes") {
  using Tg = ufunc::target::device;
  check_transpose_sizes<Tg, std::uint8_t>();
  check_transpose_sizes<Tg, std::int16_t>();
  check_transpose_sizes<Tg, float>();
  check_transpose_sizes<Tg, double>();
  check_transpose_sizes<Tg, q16>();
  check_transpose_sizes<Tg, rgb32>();
}

TEST_CASE("transpose: the host target in every build") {
  check_transpose_2d<ufunc::target::host, float>(65, 63);
  check_transpose_2d<ufunc::target::host, std::uint8_t>(31, 100);
  check_transpose_2d<ufunc::target::host, q16>(7, 40);
}

TEST_CASE("transpose large: ragged 8191 x 8193 (CUDA) or 1000 x 999 (host)") {
  const index_t r = ufunc::cuda_backend ? 8191 : 1000, c = ufunc::cuda_backend ? 8193 : 999;
  check_transpose_2d<ufunc::target::device, float>(r, c);
  check_transpose_2d<ufunc::target::device, std::uint16_t>(ufunc::cuda_backend ? 2047 : 300, ufunc::cuda_backend ? 3001 : 301);
}

TEST_CASE("transpose: N-d permutations, negative axes, views and out") {
  using Tg = ufunc::target::device;
  const dims_t d = {3, 4, 5};
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const auto hx = random_elems<float>(60, seed);
  auto x = make<Tg>(hx, d);
  std::vector<int> axes = {0, 1, 2};
  do {
    INFO("axes " << axes[0] << axes[1] << axes[2]);
    const auto ref = ref_transpose(hx, d, axes);
    for (auto v : ufunc::transpose_variants<Tg>()) {
      INFO("variant " << ufunc::to_string(v));
      const auto y = ufunc::transpose(x, axes, v);
      CHECK(all_equal(y.to_host(), ref));
    }
  } while (std::next_permutation(axes.begin(), axes.end()));
  // The example, negative axes, and the default (reversed) order.
  CHECK(all_equal(ufunc::transpose(x, {1, 0, 2}).to_host(), ref_transpose(hx, d, {1, 0, 2})));
  CHECK(all_equal(ufunc::transpose(x, {-1, 0, -2}).to_host(), ref_transpose(hx, d, {2, 0, 1})));
  const auto rev = ufunc::transpose(x);
  CHECK(rev.shape() == shape{5, 4, 3});
  CHECK(all_equal(rev.to_host(), ref_transpose(hx, d, {2, 1, 0})));
  // 4-d with batch dims on both sides of the swapped pair.
  const dims_t d4 = {2, 3, 4, 5};
  const auto h4 = random_elems<double>(120, seed + 1);
  auto x4 = make<Tg>(h4, d4);
  for (const std::vector<int>& ax : {std::vector<int>{3, 1, 2, 0}, {0, 3, 2, 1}, {1, 0, 3, 2}, {2, 3, 0, 1}})
    for (auto v : ufunc::transpose_variants<Tg>()) CHECK(all_equal(ufunc::transpose(x4, ax, v).to_host(), ref_transpose(h4, d4, ax)));
  // Ranks 0 and 1: copies.
  auto s = ufunc::full<float, Tg>(shape{}, 2.5f);
  CHECK(ufunc::transpose(s).to_host() == std::vector<float>{2.5f});
  auto line = make<Tg>(std::vector<float>{1, 2, 3}, {3});
  CHECK(ufunc::transpose(line).to_host() == std::vector<float>{1, 2, 3});

  // Views as input: a column slice with a step (no dims swapped: the strided
  // row copy), its transpose, and a reversed view.
  const auto hw = random_elems<float>(12 * 10, seed + 2);
  auto w = make<Tg>(hw, {12, 10});
  const auto cols = w.view().sliced(1, 1, 10, 3);  // (12, 3)
  std::vector<float> hcols;
  for (index_t i = 0; i < 12; ++i)
    for (index_t j = 1; j < 10; j += 3) hcols.push_back(hw[static_cast<std::size_t>(i * 10 + j)]);
  for (auto v : ufunc::transpose_variants<Tg>()) {
    CHECK(all_equal(ufunc::transpose(cols, {0, 1}, v).to_host(), hcols));
    CHECK(all_equal(ufunc::transpose(cols, v).to_host(), ref_transpose(hcols, {12, 3}, {1, 0})));
    const auto flipped = w.view().sliced(0, -1, -13, -1);
    std::vector<float> hflip;
    for (index_t i = 11; i >= 0; --i)
      for (index_t j = 0; j < 10; ++j) hflip.push_back(hw[static_cast<std::size_t>(i * 10 + j)]);
    CHECK(all_equal(ufunc::transpose(flipped, v).to_host(), ref_transpose(hflip, {12, 10}, {1, 0})));
  }

  // out: an array, and a strided window of a larger one.
  auto y = ufunc::full<float, Tg>(shape{10, 12}, std::numeric_limits<float>::quiet_NaN());
  auto r = ufunc::transpose(w, ufunc::out(y));
  CHECK(r.data() == y.data());
  CHECK(all_equal(y.to_host(), ref_transpose(hw, {12, 10}, {1, 0})));
  auto big = ufunc::full<float, Tg>(shape{10, 30}, -1.0f);
  ufunc::transpose(w, ufunc::out(big.view().sliced(1, 0, 24, 2)));
  const auto hbig = big.to_host();
  const auto ref_t = ref_transpose(hw, {12, 10}, {1, 0});
  std::size_t bad = 0;
  for (index_t i = 0; i < 10; ++i)
    for (index_t j = 0; j < 30; ++j) {
      const float got = hbig[static_cast<std::size_t>(i * 30 + j)];
      const float want = (j < 24 && j % 2 == 0) ? ref_t[static_cast<std::size_t>(i * 12 + j / 2)] : -1.0f;
      bad += !(got == want);
    }
  CHECK(bad == 0);
}

TEST_CASE("transpose: errors") {
  using Tg = ufunc::target::device;
  auto x = ufunc::full<float, Tg>(shape{2, 3, 4}, 1.0f);
  auto msg = [](auto&& fn) { return test::message_of<ufunc::shape_error>(fn); };
  for (const std::vector<int>& bad : {std::vector<int>{0, 1}, {0, 1, 1}, {0, 1, 3}, {0, 1, -4}, {0, 1, 2, 3}}) {
    const std::string m = msg([&] { (void)ufunc::transpose(x, bad); });
    INFO(m);
    CHECK(m.rfind("transpose: axes (", 0) == 0);
    CHECK(test::contains(m, "(2,3,4)"));
  }
  auto y = ufunc::full<float, Tg>(shape{4, 3, 3}, 5.0f);
  CHECK(test::contains(msg([&] { ufunc::transpose(x, ufunc::out(y)); }), "out has shape (4,3,3)"));
  auto sq = ufunc::full<float, Tg>(shape{8, 8}, 5.0f);
  CHECK(test::contains(msg([&] { ufunc::transpose(sq, ufunc::out(sq)); }), "overlaps input 0"));
  const auto hy = y.to_host();
  CHECK(std::all_of(hy.begin(), hy.end(), [](float v) { return v == 5.0f; }));
  const auto other = ufunc::cuda_backend ? ufunc::transpose_variant::blocked : ufunc::transpose_variant::tiled;
  CHECK_THROWS_AS((void)ufunc::transpose(sq, other), ufunc::value_error);
}
