// transpose variant "naive" (the seed's kernel): one thread per element,
// threads of a warp consecutive along the source's fastest dim i, so reads are
// coalesced and writes stride through memory (one 32-byte sector per element
// when the destination is a true transpose). Also the kernel for copies that
// swap no dims (source and destination fastest along the same dim), where both
// sides are coalesced.
#pragma once

#include "../../linalg_plan.hpp"
#include "linalg_common.cuh"

namespace ufunc::detail {

struct transpose_naive_tuning {
  static constexpr int block_x = 32;  // along i (the source's fastest dim)
  static constexpr int block_y = 8;   // along j
};

/// dst[b, i, j] = src[b, i, j] for storage type S (see copy_args).
template <class S>
__global__ void __launch_bounds__(transpose_naive_tuning::block_x * transpose_naive_tuning::block_y)
    transpose_naive_kernel(copy_args p) {
  using tun = transpose_naive_tuning;
  const S* src = static_cast<const S*>(p.src);
  S* dst = static_cast<S*>(p.dst);
  for (index_t z = blockIdx.z; z < p.batch.count; z += gridDim.z) {
    index_t off[2];
    p.batch.offsets(z, off);
    for (index_t j = static_cast<index_t>(blockIdx.y) * tun::block_y + threadIdx.y; j < p.nj;
         j += static_cast<index_t>(gridDim.y) * tun::block_y)
      for (index_t i = static_cast<index_t>(blockIdx.x) * tun::block_x + threadIdx.x; i < p.ni;
           i += static_cast<index_t>(gridDim.x) * tun::block_x)
        dst[off[0] + i * p.d_i + j * p.d_j] = src[off[1] + i * p.s_i + j * p.s_j];
  }
}

}  // namespace ufunc::detail
