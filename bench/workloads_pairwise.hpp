// The functors and the host reference of the 3-D pairwise workloads (issue 15),
// shared by bench_pairwise.cu and the sweep (sweep/sweep_pairwise.cpp) so that
// both time the same math: the Gaussian kernel sum's term and the squared
// distance of 1-nearest neighbours, over points passed as vec<3>.
#pragma once

#include <ufunc/ufunc.hpp>

#include <cuda/std/array>

#include <cmath>
#include <cstddef>
#include <vector>

namespace workloads {

using P3 = cuda::std::array<float, 3>;

/// exp(-|x - y|^2 / 2) * b: a term of a_i = sum_j exp(-|x_i - y_j|^2 / 2) b_j.
struct gauss_term3 {
  UFUNC_HD float operator()(const P3& x, const P3& y, float b) const {
    const float dx = x[0] - y[0], dy = x[1] - y[1], dz = x[2] - y[2];
    return expf(-0.5f * (dx * dx + dy * dy + dz * dz)) * b;
  }
};
/// The same term with the GPU's fast exponential (__expf: the SFU's ex2.approx, 2 +
/// floor(1.16 |x|) ulp), as KeOps compiles its formulas (NVRTC with -use_fast_math);
/// expf elsewhere. For a like-for-like comparison with KeOps (bench/peers/keops_peers.py).
struct gauss_term3_fast {
  UFUNC_HD float operator()(const P3& x, const P3& y, float b) const {
    const float dx = x[0] - y[0], dy = x[1] - y[1], dz = x[2] - y[2];
#if defined(__CUDA_ARCH__)
    return __expf(-0.5f * (dx * dx + dy * dy + dz * dz)) * b;
#else
    return expf(-0.5f * (dx * dx + dy * dy + dz * dz)) * b;
#endif
  }
};
/// |x - y|^2.
struct dist2_3 {
  UFUNC_HD float operator()(const P3& x, const P3& y) const {
    const float dx = x[0] - y[0], dy = x[1] - y[1], dz = x[2] - y[2];
    return dx * dx + dy * dy + dz * dz;
  }
};

/// |x_i - y_j|^2 in double, points stored as consecutive triples of x and y.
inline double ref_dist2(const std::vector<float>& x, ufunc::index_t i, const std::vector<float>& y, ufunc::index_t j) {
  double s = 0;
  for (int k = 0; k < 3; ++k) {
    const double d = double(x[std::size_t(3 * i + k)]) - double(y[std::size_t(3 * j + k)]);
    s += d * d;
  }
  return s;
}

}  // namespace workloads
