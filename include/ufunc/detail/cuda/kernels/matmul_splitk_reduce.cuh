// Split-k epilogue of the optimized matmul: C = sum over splits of the partial
// products in the workspace, added in split order so results do not depend on
// scheduling. Memory-bound and small: only used when C has too few tiles to
// fill the GPU (C is small), one thread per element of C.
#pragma once

#include "../../linalg_plan.hpp"
#include "../../memory.hpp"
#include "linalg_common.cuh"

namespace ufunc::detail {

struct matmul_splitk_tuning {
  static constexpr int block = 256;
};

/// Device scratch for the partial products, freed stream-ordered (also when a
/// launch throws).
template <class T>
class splitk_workspace {
 public:
  splitk_workspace(std::size_t n, stream_ref s)
      : p_(static_cast<T*>(memory<target::cuda>::allocate(n * sizeof(T), s))), s_(s) {}
  splitk_workspace(const splitk_workspace&) = delete;
  splitk_workspace& operator=(const splitk_workspace&) = delete;
  ~splitk_workspace() { memory<target::cuda>::deallocate(p_, s_); }
  T* data() const noexcept { return p_; }

 private:
  T* p_;
  stream_ref s_;
};

/// ws holds `splits` slices of `slice` elements, each (batch, m, n) row-major;
/// writes C at p.c with p.ldc and p.batch's C strides.
/// The workspace's elements are W (T, or float for 16-bit T), its rows `ldw`
/// apart (p.n unless padded); the sum is W, rounded to T once.
template <class T, class W>
__global__ void __launch_bounds__(matmul_splitk_tuning::block)
    matmul_splitk_reduce_kernel(gemm_args<T> p, const W* ws, int splits, index_t slice, index_t ldw) {
  for (index_t idx = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; idx < slice;
       idx += static_cast<index_t>(gridDim.x) * blockDim.x) {
    const index_t j = idx % p.n, t = idx / p.n;
    const index_t i = t % p.m, z = t / p.m;
    const index_t w = (z * p.m + i) * ldw + j;
    W sum = ws[w];
    for (int s = 1; s < splits; ++s) sum += ws[s * (slice / p.n * ldw) + w];
    index_t off[3];
    p.batch.offsets(z, off);
    p.c[off[2] + i * p.ldc + j] = static_cast<T>(sum);
  }
}

/// `slice` elements of C (batch x m x n) from `splits` workspace slices of
/// (batch x m) rows of `ldw` elements.
template <class T, class W>
void launch_matmul_splitk_reduce(const gemm_args<T>& p, const W* ws, int splits, index_t slice, stream_ref s,
                                 index_t ldw) {
  constexpr int B = matmul_splitk_tuning::block;
  const dim3 grid = linalg_grid((slice + B - 1) / B, 1, 1);
  matmul_splitk_reduce_kernel<T, W><<<grid, B, 0, s.get()>>>(p, ws, splits, slice, ldw);
  UFUNC_CHECK_LAUNCH("matmul_splitk_reduce_kernel", s.get());
}
template <class T>
void launch_matmul_splitk_reduce(const gemm_args<T>& p, const T* ws, int splits, index_t slice, stream_ref s) {
  launch_matmul_splitk_reduce<T, T>(p, ws, splits, slice, s, p.n);
}

}  // namespace ufunc::detail
