// UFUNC_DEBUG bounds checks on the host: this translation unit (its own test
// program, compiled with UFUNC_DEBUG) checks that every out-of-range view access
// throws std::out_of_range naming the index and the extent, that in-range accesses
// are unaffected, and that an error inside parallel_for<target::host> reaches the
// caller. The device side (printf + trap) is shown by example_histogram_debug.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "test_support.hpp"

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#if !defined(UFUNC_DEBUG)
#  error "test_bounds.cpp is built with UFUNC_DEBUG"
#endif

using test::contains;
using ufunc::index_t;
using ufunc::shape;
using host = ufunc::target::host;

namespace {

/// The message of the std::out_of_range that `fn` throws ("" if none).
template <class Fn>
std::string out_of_range_of(Fn&& fn) {
  return test::message_of<std::out_of_range>(std::forward<Fn>(fn));
}

}  // namespace

TEST_CASE("UFUNC_DEBUG: v[i] outside [0, size) throws with the index and the extent") {
  auto a = ufunc::zeros<int, host>(shape{16});
  auto v = a.view();
  static_assert(!noexcept(v[0]), "checked accessors may throw");
  std::string m = out_of_range_of([&] { (void)v[16]; });
  INFO(m);
  CHECK(m == "ufunc::array_view[]: index 16 is out of range for extent 16");
  CHECK(contains(out_of_range_of([&] { (void)v[-1]; }), "index -1 is out of range for extent 16"));
  CHECK(contains(out_of_range_of([&] { (void)v[1000000]; }), "index 1000000 is out of range for extent 16"));
  // A 2-D view: v[i] is checked against the element count.
  auto b = ufunc::zeros<int, host>(shape{3, 4});
  auto w = b.view();
  CHECK(contains(out_of_range_of([&] { (void)w[12]; }), "index 12 is out of range for extent 12"));
  // In range: no throw, the right elements (v[i] row-major, also on a transposed view).
  for (index_t i = 0; i < 12; ++i) w[i] = static_cast<int>(i);
  const auto t = w.transposed();  // (4,3)
  CHECK(out_of_range_of([&] {
          for (index_t i = 0; i < 12; ++i) REQUIRE(t[i] == static_cast<int>((i % 3) * 4 + i / 3));
        }) == "");
  CHECK(contains(out_of_range_of([&] { (void)t[12]; }), "extent 12"));
}

TEST_CASE("UFUNC_DEBUG: v(i, j, ...) checks each index against its dimension, and the index count") {
  auto a = ufunc::zeros<float, host>(shape{3, 4, 5});
  auto v = a.view();
  CHECK(out_of_range_of([&] { v(2, 3, 4) = 1.0f; }) == "");
  CHECK(a.to_host().back() == 1.0f);
  std::string m = out_of_range_of([&] { (void)v(3, 0, 0); });
  INFO(m);
  CHECK(m == "ufunc::array_view(): index 3 is out of range for extent 3 in dimension 0");
  CHECK(out_of_range_of([&] { (void)v(0, 4, 0); }) ==
        "ufunc::array_view(): index 4 is out of range for extent 4 in dimension 1");
  CHECK(out_of_range_of([&] { (void)v(0, 0, -2); }) ==
        "ufunc::array_view(): index -2 is out of range for extent 5 in dimension 2");
  CHECK(out_of_range_of([&] { (void)v(std::size_t{1}, std::size_t{7}, std::size_t{1}); }) ==
        "ufunc::array_view(): index 7 is out of range for extent 4 in dimension 1");
  CHECK(out_of_range_of([&] { (void)v(1, 1); }) == "ufunc::array_view(): 2 indices given for a view of rank 3");
  CHECK(out_of_range_of([&] { (void)v(1, 1, 1, 0); }) == "ufunc::array_view(): 4 indices given for a view of rank 3");
  // A slice checks against its own extents, not the parent's.
  const auto s = v.sliced(2, 1, 3);  // (3,4,2)
  CHECK(out_of_range_of([&] { (void)s(0, 0, 1); }) == "");
  CHECK(out_of_range_of([&] { (void)s(0, 0, 2); }) ==
        "ufunc::array_view(): index 2 is out of range for extent 2 in dimension 2");
}

TEST_CASE("UFUNC_DEBUG: an out-of-range access in parallel_for<host> is reported to the caller") {
  const index_t n = 100'000, bins = 16;
  auto hist = ufunc::zeros<int, host>(shape{bins});
  auto h = hist.view();
  // Off by one: index i maps to bin i * bins / n + 1, so the last 1/16 of the indices hit bin 16.
  const std::string m = out_of_range_of([&] {
    ufunc::parallel_for<host>(n, [=] UFUNC_HD (std::size_t i) {
      ufunc::atomic_add(&h[static_cast<index_t>(i) * bins / n + 1], 1);
    });
  });
  INFO(m);
  CHECK(m == "ufunc::array_view[]: index 16 is out of range for extent 16");
  // The same loop, correct, runs through.
  auto hist2 = ufunc::zeros<int, host>(shape{bins});
  auto h2 = hist2.view();
  ufunc::parallel_for<host>(n, [=] UFUNC_HD (std::size_t i) { ufunc::atomic_add(&h2[static_cast<index_t>(i) * bins / n], 1); });
  for (int c : hist2.to_host()) CHECK(c == n / bins);
  // 2-D: an index from the wrong dimension.
  auto m2 = ufunc::zeros<int, host>(shape{5, 3});
  auto mv = m2.view();
  CHECK(out_of_range_of([&] {
          ufunc::parallel_for<host>(shape{3, 5}, [=] UFUNC_HD (std::size_t i, std::size_t j) { mv(i, j) = 1; });
        }) == "ufunc::array_view(): index 3 is out of range for extent 3 in dimension 1");
}
