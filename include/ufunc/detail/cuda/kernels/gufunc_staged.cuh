// The gufunc kernel: blocks of B loop elements. The staged inputs' core blocks
// of a block's elements (one contiguous range per input) are copied into shared
// memory with coalesced loads, 16 bytes a load where aligned, or for large
// blocks with cp.async, 16 bytes a copy where aligned (gufunc_plan.hpp says
// which); then each thread
// calls f once for its element, with views of its staged blocks (each block
// padded to an odd number of 4-byte words, so that threads reading the same
// core position hit distinct banks; blocks copied 16 bytes at a time to a
// 16-byte multiple of 4 mod 8 words, 4 threads a bank) and of the other
// operands in place.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include <cuda/std/tuple>

#include "../../../config.hpp"

namespace ufunc::detail {

/// Per operand, what the kernel stages (outputs never; gufunc_plan.hpp's
/// gufunc_stage, in the kernel's units).
template <std::size_t N>
struct gufunc_stage_set {
  bool on[N];
  bool vec16[N];
  bool async[N];  // cp.async (sm_80 on; code for older devices ignores it)
  bool async16[N];  // cp.async of 16 bytes (with async; rows padded to 16 bytes)
  unsigned count[N], pad[N], offset[N];  // elements, elements, bytes
  float inv_count[N];                    // 1 / count, for the copy's divisions
};

/// q = i / c, r = i % c for i < 2^24: a float estimate, off by at most one.
__device__ __forceinline__ void gufunc_divmod(unsigned i, unsigned c, float inv_c, unsigned& q, unsigned& r) {
  int qi = static_cast<int>(static_cast<float>(i) * inv_c);
  int ri = static_cast<int>(i) - qi * static_cast<int>(c);
  if (ri < 0) --qi, ri += static_cast<int>(c);
  else if (ri >= static_cast<int>(c)) ++qi, ri -= static_cast<int>(c);
  q = static_cast<unsigned>(qi);
  r = static_cast<unsigned>(ri);
}

/// dst[(i / c) * pad + i % c] = src[i] for the V * n elements of n units L (an
/// element, or 16 bytes of V elements: c a multiple of V, so that a unit's
/// elements lie in one block), by the block's B threads, U loads in flight a
/// thread (a block's loads are all the memory traffic its SM has in flight
/// while it copies).
template <int B, int U, unsigned V, class L, class T>
__device__ __forceinline__ void gufunc_copy_units(const L* src, T* dst, unsigned n, unsigned c, unsigned pad,
                                                  float inv_c) {
  for (unsigned v0 = threadIdx.x; v0 < n; v0 += B * U) {
    L x[U];
#pragma unroll
    for (unsigned u = 0; u < static_cast<unsigned>(U); ++u)
      if (v0 + u * B < n) x[u] = src[v0 + u * B];
#pragma unroll
    for (unsigned u = 0; u < static_cast<unsigned>(U); ++u)
      if (v0 + u * B < n) {
        unsigned q, r;
        gufunc_divmod((v0 + u * B) * V, c, inv_c, q, r);
        T t[V];
        memcpy(t, &x[u], sizeof(L));
        T* d = dst + q * pad + r;
#pragma unroll
        for (unsigned j = 0; j < V; ++j) d[j] = t[j];
      }
  }
}

/// The total elements of a block's staged blocks: 16 bytes a load when vec16.
template <int B, int U, class T>
__device__ __forceinline__ void gufunc_copy_in(const T* src, T* dst, unsigned total, unsigned c, unsigned pad,
                                               float inv_c, bool vec16) {
  if constexpr (16 % sizeof(T) == 0)
    if (vec16) {
      constexpr unsigned V = 16 / sizeof(T);
      gufunc_copy_units<B, U, V>(reinterpret_cast<const uint4*>(src), dst, total / V, c, pad, inv_c);
      return;
    }
  gufunc_copy_units<B, U, 1>(src, dst, total, c, pad, inv_c);
}

/// The same copy with cp.async (sm_80 and later): from global memory into
/// shared memory, no registers between, so a block has its whole staged range
/// in flight at once and the copy adds no registers to the kernel (the register
/// copy's U loads a thread capped the resident threads of every gufunc kernel,
/// staged or not). Consecutive lanes take consecutive elements, or with `wide`
/// consecutive 16 bytes (V elements: c and pad multiples of V, src and each
/// padded block 16-byte aligned; gufunc_plan.hpp's async16): each warp's
/// request is one contiguous range. 16 bytes a copy issue a quarter of the
/// instructions: H200, the dot over rows of 64 floats 0.79 -> 0.84-0.85 of a
/// copy's rate. One loop for both widths: a second copy function in the kernel
/// cost the 3x3 solve, which stages nothing, 15 % (0.91 -> 0.78; one loop
/// 0.90-0.91; bench/NOTES.md, session 28).
template <int B, class T>
__device__ __forceinline__ void gufunc_copy_async(const T* src, T* dst, unsigned total, unsigned c, unsigned pad,
                                                  float inv_c, bool wide) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  static_assert(sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16, "cp.async copies 4, 8 or 16 bytes");
  constexpr unsigned W = 16 / sizeof(T);
  const unsigned V = wide ? W : 1, cu = c / V, units = total / V;
  unsigned q, r;
  if (wide)
    q = threadIdx.x / cu, r = threadIdx.x % cu;
  else
    gufunc_divmod(threadIdx.x, c, inv_c, q, r);
  const unsigned dq = static_cast<unsigned>(B) / cu, dr = static_cast<unsigned>(B) % cu;
  for (unsigned u = threadIdx.x; u < units; u += B) {
    const auto to = static_cast<unsigned>(__cvta_generic_to_shared(dst + q * pad + r * V));
    if (wide)
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(to), "l"(src + u * V) : "memory");
    else
      asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(to), "l"(src + u), "n"(sizeof(T)) : "memory");
    q += dq;
    r += dr;
    if (r >= cu) r -= cu, ++q;
  }
#else
  (void)src, (void)dst, (void)total, (void)c, (void)pad, (void)inv_c, (void)wide;
#endif
}

template <int B, int U, class Body, std::size_t... K>
__device__ __forceinline__ void gufunc_stage_block(const Body& body, const gufunc_stage_set<Body::nops>& st,
                                                   unsigned char* smem, index_t e0, unsigned nb,
                                                   std::index_sequence<K...>) {
  (
      [&] {
        if (!st.on[K]) return;
        const auto& core = cuda::std::get<K>(body.args).core;
        using T = std::remove_const_t<std::remove_pointer_t<decltype(core.data())>>;
        // The staged operand's element e block lies at e * count (gufunc_plan.hpp).
        const T* src = core.data() + e0 * static_cast<index_t>(st.count[K]);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
        if constexpr (sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16)
          if (st.async[K]) {
            gufunc_copy_async<B>(src, reinterpret_cast<T*>(smem + st.offset[K]), nb * st.count[K], st.count[K],
                                 st.pad[K], st.inv_count[K], st.async16[K]);
            return;
          }
#endif
        gufunc_copy_in<B, U>(src, reinterpret_cast<T*>(smem + st.offset[K]), nb * st.count[K], st.count[K], st.pad[K],
                             st.inv_count[K], st.vec16[K]);
      }(),
      ...);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\ncp.async.wait_group 0;\n" ::: "memory");  // no-op without copies
#endif
}

template <class Body, std::size_t... K>
__device__ __forceinline__ void gufunc_call(const Body& body, const gufunc_stage_set<Body::nops>& st,
                                            unsigned char* smem, index_t e, std::index_sequence<K...>) {
  index_t off[Body::nops] = {};
  body.offsets(static_cast<std::size_t>(e), off);
  const auto view = [&](auto k) {
    constexpr std::size_t k_ = decltype(k)::value;
    const auto& core = cuda::std::get<k_>(body.args).core;
    using P = decltype(core.data());
    return st.on[k_] ? core.rebased(reinterpret_cast<P>(smem + st.offset[k_]) + threadIdx.x * st.pad[k_])
                     : core.shifted(off[k_]);
  };
  body.f(view(std::integral_constant<std::size_t, K>{})...);
}

// At least 1,024 threads an SM (64 registers a thread at most): the kernel holds
// both copies (registers and cp.async), and unbounded it took 68 registers for the
// 3x3 solve (7 blocks of 128 an SM instead of 8) and ran it at 0.74 of a copy's
// rate against 0.89 (bench/NOTES.md, session 17).
template <int B, int U, class Body>
__global__ void __launch_bounds__(B, (1024 / B > 0 ? 1024 / B : 1))
    gufunc_staged_kernel(Body body, gufunc_stage_set<Body::nops> st, index_t n) {
  extern __shared__ __align__(16) unsigned char gufunc_smem[];
  const index_t step = static_cast<index_t>(gridDim.x) * B;
  for (index_t e0 = static_cast<index_t>(blockIdx.x) * B; e0 < n; e0 += step) {  // uniform over the block
    const auto nb = static_cast<unsigned>(n - e0 < B ? n - e0 : B);
    gufunc_stage_block<B, U>(body, st, gufunc_smem, e0, nb, std::make_index_sequence<Body::nops>{});
    __syncthreads();
    if (threadIdx.x < nb) gufunc_call(body, st, gufunc_smem, e0 + threadIdx.x, std::make_index_sequence<Body::nops>{});
    __syncthreads();  // before the next round's copies overwrite the blocks
  }
}

}  // namespace ufunc::detail
