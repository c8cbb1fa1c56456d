// What the sharded benchmarks (bench_multi_gpu, bench_mpi) compute and check:
// their data makers and element functions, one copy.
#pragma once

#include <ufunc/ufunc.hpp>

#include <vector>

namespace sharded_bench {

/// n floats lo, lo + step, lo + 2 step, ...
inline std::vector<float> ramp(long long n, float lo, float step) {
  std::vector<float> v(static_cast<std::size_t>(n));
  for (long long i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = lo + step * float(i);
  return v;
}
/// n small integers (-3 to 3) as floats: a matmul of them sums exactly in any order.
inline std::vector<float> small_ints(long long n) {
  std::vector<float> v(static_cast<std::size_t>(n));
  for (long long i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = float(int((i * 7919) % 7) - 3);
  return v;
}
/// The Gaussian pdf, an addition and a count of differing elements (the checks).
struct pdf_fn {
  UFUNC_HD float operator()(float x) const { return expf(-0.5f * x * x) * 0.3989422804014327f; }
};
struct add_fn {
  UFUNC_HD float operator()(float a, float b) const { return a + b; }
};
struct differs_fn {
  UFUNC_HD long long operator()(float a, float b) const { return a != b ? 1 : 0; }
};

}  // namespace sharded_bench

using namespace sharded_bench;  // NOLINT: the two programs use them unqualified
