// Shared helpers of the reduction tests (test_reduce.cpp, test_reduce_axes.cpp,
// test_ufunc_methods.cpp): reference groups by index math, double sums, the
// tree-order error bound, and the small function objects the tests reduce with.
#pragma once

#include "test_support.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <type_traits>
#include <vector>

using test::ref_operand;
using ufunc::index_t;
using ufunc::shape;

namespace reduce_test {

/// The elements each output of a reduction combines, in row-major order of the
/// reduced dims (so a position in a group is argmin's index). `op` describes
/// where element (i0, i1, ...) of `full` lives in `base`.
template <class T>
std::vector<std::vector<T>> groups(const std::vector<T>& base, const ref_operand& op, const std::vector<index_t>& full,
                                   const std::vector<bool>& red) {
  std::vector<index_t> kept;
  for (std::size_t d = 0; d < full.size(); ++d)
    if (!red[d]) kept.push_back(full[d]);
  const auto kst = test::row_major(kept);
  const index_t n = test::count_of(full), outs = test::count_of(kept);
  std::vector<std::vector<T>> g(static_cast<std::size_t>(outs));
  if (n == 0) return g;
  for (auto& v : g) v.reserve(static_cast<std::size_t>(n / outs));
  // The index (i0, i1, ...) walked as an odometer in C order: no allocation per
  // element (this loop is most of some host test cases' time under ASan).
  std::vector<index_t> idx(full.size(), 0);
  for (index_t i = 0; i < n; ++i) {
    index_t o = 0;
    for (std::size_t d = 0, k = 0; d < full.size(); ++d)
      if (!red[d]) o += idx[d] * kst[k++];
    g[static_cast<std::size_t>(o)].push_back(base[static_cast<std::size_t>(test::bcast_offset(idx, op))]);
    for (std::size_t d = full.size(); d-- > 0;) {
      if (++idx[d] < full[d]) break;
      idx[d] = 0;
    }
  }
  return g;
}

inline std::vector<index_t> result_dims(const std::vector<index_t>& full, const std::vector<bool>& red, bool keep) {
  std::vector<index_t> r;
  for (std::size_t d = 0; d < full.size(); ++d)
    if (!red[d] || keep) r.push_back(red[d] ? 1 : full[d]);
  return r;
}

inline double dsum(const std::vector<float>& g) {
  double s = 0;
  for (float v : g) s += v;
  return s;
}
inline double dabs_sum(const std::vector<float>& g) {
  double s = 0;
  for (float v : g) s += std::fabs(v);
  return s;
}

/// `got` is the sum of the doubles `g` within 64 ulps of their magnitude sum
/// (|got - sum| <= 64 * 2^-53 * sum|g|), the bound the double reductions are held to.
inline bool double_sum_close(double got, const std::vector<double>& g) {
  double s = 0, sa = 0;
  for (double v : g) s += v, sa += std::fabs(v);
  return std::fabs(got - s) <= 64 * std::ldexp(1.0, -53) * sa;
}

/// Error bound of a pairwise (tree) float sum of `n` terms: (ceil(log2 n) + 2) *
/// u * sum|x| (Higham; +2 for the final conversions). The engines' trees have short
/// serial leaves, whose worst case is wider, but random rounding keeps real errors
/// far below this; a serial loop exceeds it on biased data (checked in the tests).
inline double tree_bound(std::size_t n, double abs_sum) {
  const double u = std::ldexp(1.0, -24);
  return (std::ceil(std::log2(std::max<double>(2, static_cast<double>(n)))) + 2) * u * abs_sum + 1e-30;
}

struct abs_f {
  UFUNC_HD float operator()(float v) const { return std::fabs(v); }
};
struct mul_f {
  UFUNC_HD float operator()(float a, float b) const { return a * b; }
};
struct max_f {
  UFUNC_HD float operator()(float a, float b) const { return a > b ? a : b; }
};
struct add_f {
  UFUNC_HD float operator()(float a, float b) const { return a + b; }
};
struct add_i {
  UFUNC_HD long long operator()(long long a, long long b) const { return a + b; }
};
struct sub_d {
  UFUNC_HD double operator()(float a, double b) const { return a - b; }
};
struct sq_diff {
  UFUNC_HD double operator()(float a, float b) const { return double(a - b) * double(a - b); }
};

/// `fn` throws an std::invalid_argument (shape_error, value_error) whose message contains `part`.
template <class Fn>
void expect_throws_with(Fn fn, const char* part) {
  const std::string what = test::message_of<std::invalid_argument>(fn);
  INFO("message: " << what << "; expected to contain: " << part);
  CHECK(test::contains(what, part));  // fails too when nothing was thrown ("")
}

}  // namespace reduce_test

using namespace reduce_test;

