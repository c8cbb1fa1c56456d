// Shared by the streaming tests (test_streaming*.cpp): a device memory limit for
// a scope, bit-for-bit comparison, pinned copies, the staging blocks out and the
// functions they stream.
#pragma once

#include "test_support.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

namespace streaming_test {

using ufunc::index_t;
using ufunc::shape;

/// Sets the device memory limit for a scope.
struct limit_scope {
  explicit limit_scope(std::size_t b) { ufunc::set_device_memory_limit(b); }
  ~limit_scope() { ufunc::set_device_memory_limit(0); }
};

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

#if defined(UFUNC_TESTING)
/// Staging blocks taken and not returned (none on the host backend, which stages nothing).
inline std::size_t staging_out() {
#  if defined(UFUNC_BACKEND_CUDA)
  return ufunc::detail::cuda_stream::staging_cache::get().blocks_out();
#  else
  return 0;
#  endif
}
#endif

template <class T>
ufunc::pinned_array<T> pinned_of(const std::vector<T>& v, const shape& s) {
  ufunc::pinned_array<T> p(s);
  std::copy(v.begin(), v.end(), p.data());
  return p;
}

// Function objects: a lambda at namespace scope cannot be an nvcc extended lambda.
struct fma3_fn {
  UFUNC_HD double operator()(float x, float y, double z) const { return x * y + z; }
};
struct two_out_fn {
  UFUNC_HD cuda::std::tuple<float, int> operator()(float x, float y) const {
    return cuda::std::make_tuple(x - y, static_cast<int>(x > y));
  }
};
struct positive_fn {
  UFUNC_HD bool operator()(float x) const { return x > 0; }
};
inline const auto fma3 = ufunc::vectorize(fma3_fn{}, "fma3");
inline const auto two_out = ufunc::vectorize(two_out_fn{}, "two_out");

/// The data of the streamed mean, out(...) and initial-value cases
/// (test_streaming_init.cpp, test_streaming_out.cpp): a (203, 31) float and int
/// array on the device and pinned, a memory limit of a few rows a chunk, the
/// float sums' error bound and exact integer column, row and whole sums.
struct reduce_init_data {
  std::uint64_t seed = test::fresh_seed();
  index_t m = 203, n = 31;
  shape s{m, n};
  std::vector<float> h = test::random_vector<float>(static_cast<std::size_t>(m * n), seed);
  std::vector<int> hi = test::random_vector<int>(static_cast<std::size_t>(m * n), seed + 1, -1000, 1000);
  ufunc::array<float> d = ufunc::to_device(h, s);
  ufunc::array<int> di = ufunc::to_device(hi, s);
  ufunc::pinned_array<float> p = pinned_of(h, s);
  ufunc::pinned_array<int> pi = pinned_of(hi, s);
  limit_scope lim{static_cast<std::size_t>(3 * 4 * n * 7 + 3 * 8 * n + 8 * n + 1024)};  // a few rows a chunk
  double abs_sum = 0, tol = 0;
  std::vector<long long> col, row;  // exact integer column and row sums
  long long all = 0;
  reduce_init_data() : col(static_cast<std::size_t>(n), 0), row(static_cast<std::size_t>(m), 0) {
    for (float v : h) abs_sum += std::fabs(v);
    tol = (std::log2(double(m * n)) + double(m) + 2) * 1.2e-7 * abs_sum;
    for (index_t i = 0; i < m; ++i)
      for (index_t j = 0; j < n; ++j) {
        const long long v = hi[static_cast<std::size_t>(i * n + j)];
        col[static_cast<std::size_t>(j)] += v;
        row[static_cast<std::size_t>(i)] += v;
        all += v;
      }
  }
};

}  // namespace streaming_test
