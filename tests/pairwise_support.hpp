// Shared helpers of the tests over pairs of 3-D points (test_pairwise.cpp,
// test_vec.cpp): the point type passed through ufunc::vec<3>, the squared
// distance the tests reduce and build their terms from, and its double-precision
// reference.
#pragma once

#include "test_support.hpp"

#include <cuda/std/array>

#include <cstddef>
#include <vector>

namespace test {

using P3 = cuda::std::array<float, 3>;

/// |x - y|^2 in float.
struct dist2_3 {
  UFUNC_HD float operator()(const P3& x, const P3& y) const {
    const float dx = x[0] - y[0], dy = x[1] - y[1], dz = x[2] - y[2];
    return dx * dx + dy * dy + dz * dz;
  }
};

/// |x_i - y_j|^2 in double; x and y hold points as consecutive triples.
inline double ref_dist2(const std::vector<float>& x, ufunc::index_t i, const std::vector<float>& y, ufunc::index_t j) {
  double s = 0;
  for (int k = 0; k < 3; ++k) {
    const double d = double(x[std::size_t(3 * i + k)]) - double(y[std::size_t(3 * j + k)]);
    s += d * d;
  }
  return s;
}

}  // namespace test
