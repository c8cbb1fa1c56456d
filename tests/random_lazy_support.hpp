// Shared by the lazy random leaves' tests (test_random_lazy.cpp: values,
// expressions and errors; test_random_lazy_reduce.cpp: reductions, memory and
// streamed chunks): the leaves and arrays of each kind with the same
// arguments, bit-for-bit comparison, the functions the cases call and the
// documented float bound of sums.
#pragma once

#include "test_support.hpp"

#include <ufunc/random.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace lazy_random_test {

using ufunc::index_t;
using ufunc::shape;
using host = ufunc::target::host;

template <class T>
int bits_differ(const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size()) return static_cast<int>(std::max(a.size(), b.size())) + 1;
  int bad = 0;
  for (std::size_t i = 0; i < a.size(); ++i) bad += std::memcmp(&a[i], &b[i], sizeof(T)) != 0;
  return bad;
}

enum class kind { uniform, normal, integers };

/// The parameters each kind and type is drawn with (scaled, so that low/scale
/// and mean/stddev are exercised; integers over ranges of every width).
template <class T>
struct params {
  static T a() { return T(-2); }
  static T b() { return T(3); }
};
template <>
struct params<__half> {
  static __half a() { return __float2half(-1.f); }
  static __half b() { return __float2half(3.f); }
};
template <>
struct params<__nv_bfloat16> {
  static __nv_bfloat16 a() { return __float2bfloat16(2.f); }
  static __nv_bfloat16 b() { return __float2bfloat16(0.25f); }
};
template <>
struct params<std::int8_t> {
  static std::int8_t a() { return -5; }
  static std::int8_t b() { return 7; }
};
template <>
struct params<std::int32_t> {
  static std::int32_t a() { return INT32_MIN; }
  static std::int32_t b() { return INT32_MAX; }
};
template <>
struct params<std::int64_t> {
  static std::int64_t a() { return -1000000007; }
  static std::int64_t b() { return 999999937; }
};
template <>
struct params<std::uint64_t> {
  static std::uint64_t a() { return 3; }
  static std::uint64_t b() { return UINT64_MAX; }
};

/// The leaf and the array of kind K (Tg: the target the leaf is pinned to and
/// the array made on; the leaf unpinned when Pin is false).
template <kind K, class T, class Tg, bool Pin = true>
auto leaf(const shape& s, std::uint64_t seed) {
  using L = std::conditional_t<Pin, Tg, void>;
  if constexpr (K == kind::uniform)
    return ufunc::random::lazy_uniform<T, L>(s, seed, params<T>::a(), params<T>::b());
  else if constexpr (K == kind::normal)
    return ufunc::random::lazy_normal<T, L>(s, seed, params<T>::a(), params<T>::b());
  else
    return ufunc::random::lazy_integers<T, L>(s, seed, params<T>::a(), params<T>::b());
}
template <kind K, class T, class Tg>
auto arr(const shape& s, std::uint64_t seed) {
  if constexpr (K == kind::uniform)
    return ufunc::random::uniform<T, Tg>(s, seed, params<T>::a(), params<T>::b());
  else if constexpr (K == kind::normal)
    return ufunc::random::normal<T, Tg>(s, seed, params<T>::a(), params<T>::b());
  else
    return ufunc::random::integers<T, Tg>(s, seed, params<T>::a(), params<T>::b());
}

struct ident_fn {
  template <class V>
  UFUNC_HD V operator()(V v) const { return v; }
};
struct mad_fn {  // x * z + 1, in float
  UFUNC_HD float operator()(float x, float z) const { return x * z + 1.0f; }
};
struct square_fn {
  UFUNC_HD float operator()(float v) const { return v * v; }
};
struct mul_fn {
  UFUNC_HD float operator()(float a, float b) const { return a * b; }
};

/// The documented float bound of a sum of n elements: (log2 n + 32) eps sum|x|.
inline double sum_bound(double n, double abs_sum, double eps) { return (std::log2(std::max(n, 2.0)) + 32) * eps * abs_sum; }

}  // namespace lazy_random_test
