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

}  // namespace streaming_test
