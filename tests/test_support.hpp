// Shared test helpers: fresh random data (a new seed every run, printed on
// failure through doctest's INFO), host references and tolerances, the loops
// over targets and element types, and the message of an expected exception.
#pragma once

#include <doctest/doctest.h>

#include <cmath>
#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <ufunc/ufunc.hpp>

namespace test {

/// The stress cases' total iteration count: UFUNC_STRESS_ITERS (all threads
/// together), 4000 unless set to a positive number (the sanitizer runs set less).
inline long stress_iterations() {
  const char* e = std::getenv("UFUNC_STRESS_ITERS");
  const long n = e ? std::atol(e) : 4000;
  return n > 0 ? n : 4000;
}

/// A seed drawn fresh for each test run; the value is reported in failures.
inline std::uint64_t fresh_seed() {
  static const std::uint64_t base = std::random_device{}() ^ (std::uint64_t(std::random_device{}()) << 32);
  static std::uint64_t counter = 0;
  return base + 0x9E3779B97F4A7C15ull * ++counter;
}

template <class T>
std::vector<T> random_vector(std::size_t n, std::uint64_t seed, double lo = -10.0, double hi = 10.0) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(n);
  if constexpr (std::is_floating_point_v<T>) {
    std::uniform_real_distribution<double> d(lo, hi);
    for (auto& x : v) x = static_cast<T>(d(rng));
  } else {
    std::uniform_int_distribution<long long> d(static_cast<long long>(lo), static_cast<long long>(hi));
    for (auto& x : v) x = static_cast<T>(d(rng));
  }
  return v;
}

/// Row-major strides of a shape, as a vector.
inline std::vector<ufunc::index_t> strides_of(const ufunc::shape& s) { return ufunc::contiguous_strides(s); }

/// Runs `fn(Target{})` for the host target and, in a CUDA build, the CUDA target:
/// the loop for a check that must hold on every target of the build. (nvcc allows
/// no extended UFUNC_HD lambda inside the generic lambda `fn`: define those in a
/// named function template that `fn` calls.)
/// A file compiled with UFUNC_TEST_HOST_TARGET_ONLY runs these loops on the host
/// target alone (test_lazy.cpp: its cases on both targets would cost nvcc about
/// six minutes; its random trees run on both through a loop of their own, and
/// test_lazy_device.cpp takes the other paths to the CUDA target).
template <class Fn>
void for_each_target(Fn&& fn) {
  fn(ufunc::target::host{});
#if !defined(UFUNC_TEST_HOST_TARGET_ONLY)
  if constexpr (!std::is_same_v<ufunc::target::device, ufunc::target::host>) fn(ufunc::target::device{});
#endif
}

/// Runs `fn(T{})` for each type T of the list, in order: the loop for a check
/// run per element type.
template <class... T, class Fn>
void for_each_type(Fn&& fn) {
  (fn(T{}), ...);
}

/// A short name of an element type, for failure messages.
template <class T>
std::string type_name() {
  if constexpr (std::is_same_v<T, std::int8_t>) return "int8";
  if constexpr (std::is_same_v<T, std::int16_t>) return "int16";
  if constexpr (std::is_same_v<T, std::uint8_t>) return "uint8";
  if constexpr (std::is_same_v<T, std::uint16_t>) return "uint16";
  if constexpr (std::is_same_v<T, bool>) return "bool";
  if constexpr (std::is_same_v<T, std::int64_t>) return "int64";
  if constexpr (std::is_same_v<T, int>) return "int";
  if constexpr (std::is_same_v<T, unsigned>) return "unsigned";
  if constexpr (std::is_same_v<T, long long>) return "long long";
  if constexpr (std::is_same_v<T, unsigned long long>) return "unsigned long long";
  if constexpr (std::is_same_v<T, long>) return "long";
  if constexpr (std::is_same_v<T, float>) return "float";
  if constexpr (std::is_same_v<T, double>) return "double";
  return "?";
}

/// Relative closeness for floating point: |a-b| <= rtol*max(|a|,|b|) + atol.
inline bool close(double a, double b, double rtol = 1e-6, double atol = 1e-6) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::fabs(a - b) <= rtol * std::fmax(std::fabs(a), std::fabs(b)) + atol;
}

}  // namespace test

// ---------------------------------------------------------------------------
// Index math used by the host references. Written from NumPy's definitions,
// independently of the library's own stride/broadcast code.
namespace test {

using ufunc::index_t;

/// A shape from a list of dims (rank 0 for an empty list).
inline ufunc::shape shape_of(const std::vector<index_t>& dims) { return ufunc::shape(dims); }

/// Host data `h` as a new row-major array of target Tg with dims `dims`.
template <class Tg, class T>
ufunc::array<T, Tg> make(const std::vector<T>& h, const std::vector<index_t>& dims) {
  return ufunc::asarray<Tg>(h, shape_of(dims));
}

inline std::vector<index_t> dims_of(const ufunc::shape& s) {
  std::vector<index_t> d;
  for (int i = 0; i < s.size(); ++i) d.push_back(s[i]);
  return d;
}

inline index_t count_of(const std::vector<index_t>& dims) {
  index_t n = 1;
  for (auto d : dims) n *= d;
  return n;
}

/// Row-major strides, computed here (not with ufunc::contiguous_strides).
inline std::vector<index_t> row_major(const std::vector<index_t>& dims) {
  std::vector<index_t> st(dims.size(), 1);
  for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i)
    st[static_cast<std::size_t>(i)] = st[static_cast<std::size_t>(i) + 1] * std::max<index_t>(dims[static_cast<std::size_t>(i) + 1], 1);
  return st;
}

/// Multi-index of row-major element `linear` of `dims`.
inline std::vector<index_t> unravel(index_t linear, const std::vector<index_t>& dims) {
  std::vector<index_t> idx(dims.size(), 0);
  for (int i = static_cast<int>(dims.size()) - 1; i >= 0; --i) {
    const index_t n = dims[static_cast<std::size_t>(i)];
    idx[static_cast<std::size_t>(i)] = linear % n;
    linear /= n;
  }
  return idx;
}

/// An operand as the reference sees it: element (i0, i1, ...) lives at
/// base[offset + sum(i_k * strides_k)]; dims broadcast to the result by NumPy's
/// rules (right-aligned, a dim of 1 repeats).
struct ref_operand {
  std::vector<index_t> dims;
  std::vector<index_t> strides;
  index_t offset = 0;
};

inline ref_operand contiguous(const std::vector<index_t>& dims) { return {dims, row_major(dims), 0}; }

/// Offset of the element that result multi-index `out_idx` reads from `op`.
inline index_t bcast_offset(const std::vector<index_t>& out_idx, const ref_operand& op) {
  const std::size_t shift = out_idx.size() - op.dims.size();
  index_t off = op.offset;
  for (std::size_t k = 0; k < op.dims.size(); ++k)
    if (op.dims[k] != 1) off += out_idx[shift + k] * op.strides[k];
  return off;
}

inline std::string dims_str(const std::vector<index_t>& d) {
  std::string s = "(";
  for (std::size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
  if (d.size() == 1) s += ",";
  return s + ")";
}

/// Distance in units in the last place between two finite floats.
inline std::int64_t ulp_distance(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return (std::isnan(a) && std::isnan(b)) ? 0 : INT64_MAX;
  auto key = [](float f) {
    std::int32_t i;
    std::memcpy(&i, &f, sizeof i);
    return i < 0 ? static_cast<std::int64_t>(INT32_MIN) - i : static_cast<std::int64_t>(i);
  };
  const std::int64_t d = key(a) - key(b);
  return d < 0 ? -d : d;
}

/// True when `what` contains `part` (for checking error messages).
inline bool contains(const std::string& what, const std::string& part) { return what.find(part) != std::string::npos; }

/// The message of the exception of type E that `fn` throws ("" if it throws
/// none; an exception of any other type propagates and fails the test).
template <class E, class Fn>
std::string message_of(Fn&& fn) {
  try {
    fn();
  } catch (const E& e) {
    return e.what();
  }
  return "";
}

}  // namespace test

namespace test {

template <class T>
double printable(const T& x) {
  return static_cast<double>(x);
}

/// Every element equal (after converting `want` to the element type of `got`);
/// on failure reports the number of mismatches and the first one.
template <class T, class U>
void expect_equal(const std::vector<T>& got, const std::vector<U>& want) {
  REQUIRE(got.size() == want.size());
  std::size_t bad = 0, first = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!(got[i] == static_cast<T>(want[i]))) {
      if (!bad) first = i;
      ++bad;
    }
  INFO("mismatches " << bad << " of " << got.size() << "; first at " << first << ": got "
                     << (bad ? printable(static_cast<T>(got[first])) : 0.0) << ", want "
                     << (bad ? printable(static_cast<T>(want[first])) : 0.0));
  CHECK(bad == 0);
}

/// Every element within `max_ulps` units in the last place.
inline void expect_ulps(const std::vector<float>& got, const std::vector<float>& want, std::int64_t max_ulps) {
  REQUIRE(got.size() == want.size());
  std::size_t bad = 0, first = 0;
  std::int64_t worst = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const auto d = ulp_distance(got[i], want[i]);
    worst = std::max(worst, d);
    if (d > max_ulps) {
      if (!bad) first = i;
      ++bad;
    }
  }
  INFO("worst " << worst << " ulps (allowed " << max_ulps << "); mismatches " << bad << "; first at " << first
                << ": got " << (bad ? got[first] : 0.f) << ", want " << (bad ? want[first] : 0.f));
  CHECK(bad == 0);
}

}  // namespace test
