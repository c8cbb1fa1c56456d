// What the two tensor-core matmul kernels (matmul_mma.cuh, matmul_wgmma.cuh)
// share: their arguments, a shared-memory address, and the epilogue's store of
// two neighbouring results converted to the output type.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>

namespace ufunc::detail::tc {

/// Arguments of one product C = A @ B (row-major, strides in elements). `batch`
/// products with the given strides (mma.sync's kernel only; wgmma takes one).
/// Split-k (grid.y splits): split y multiplies k-range [y k_chunk, (y+1) k_chunk)
/// into C + y split_stride; k_chunk 0 is the whole k. k_chunk is a multiple of
/// 64, so no split's k-tiles reach into the next one's range. For wgmma's tf32
/// (float inputs) `b` is B transposed (see matmul_wgmma.cuh's launch).
template <class Tin, class Tout>
struct args {
  const Tin* a = nullptr;
  const Tin* b = nullptr;
  Tout* c = nullptr;
  long long m = 0, n = 0, k = 0;
  long long lda = 0, ldb = 0, ldc = 0;
  long long batch = 1, stride_a = 0, stride_b = 0, stride_c = 0;
  long long k_chunk = 0, split_stride = 0;
};

__device__ __forceinline__ unsigned smem_u32(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

/// p[0], p[1] = x, y converted to Tout (round to nearest), or p[0] alone when
/// `both` is false (the last column). Precondition for both: p 2-element aligned.
template <class Tout>
__device__ __forceinline__ void store_pair(Tout* p, float x, float y, bool both) {
  if constexpr (std::is_same_v<Tout, float>) {
    if (both) *reinterpret_cast<float2*>(p) = make_float2(x, y);
    else p[0] = x;
  } else if constexpr (std::is_same_v<Tout, __nv_bfloat16>) {
    if (both) *reinterpret_cast<__nv_bfloat162*>(p) = __floats2bfloat162_rn(x, y);
    else p[0] = __float2bfloat16_rn(x);
  } else {
    if (both) *reinterpret_cast<__half2*>(p) = __floats2half2_rn(x, y);
    else p[0] = __float2half_rn(x);
  }
}

}  // namespace ufunc::detail::tc
