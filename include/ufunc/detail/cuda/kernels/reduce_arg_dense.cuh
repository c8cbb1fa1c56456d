// argmin/argmax of one contiguous array (a whole reduction): one thread block
// per chunk, in one wave, each thread folding its 16-byte slots in two levels
// (fold_slots_arg), then a block reduction to one partial per chunk. The row
// kernel's work without its loop over (output, chunk) items, whose 64-bit
// divisions and extra state cost registers and so resident blocks.
#pragma once

#include <type_traits>

#include <cub/block/block_reduce.cuh>

#include "reduce_slots.cuh"

namespace ufunc::detail {

/// argmin/argmax's operator (arg_fold<Op>::value), its value type and direction.
template <class Op>
struct arg_fold : std::false_type {};
template <class T, bool Max>
struct arg_fold<acc_op<arg_acc<T>, arg_pick<T, Max>>> : std::true_type {
  using value_type = T;
  static constexpr bool max = Max;
};

/// The better of two values for argmin/argmax, NaN winning (values only: the
/// index is found later). One max.NaN / min.NaN instruction for float.
template <bool Max, class T>
__device__ __forceinline__ T arg_better_value(T a, T b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (std::is_same_v<T, float>) {
    float r;
    if constexpr (Max)
      asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    else
      asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    return r;
  }
#endif
  if (is_nan(a)) return a;
  if (is_nan(b)) return b;
  return (Max ? a < b : b < a) ? b : a;
}

/// fold_slots for argmin/argmax over vector slots (the row kernels, whose
/// register budget is tighter, measured no gain from it and keep fold_slots'
/// one-level fold), in two levels: each round's
/// U * V values are reduced to the best value alone (one max.NaN per element: no
/// dependent chain of value-and-index selects), and only a round that strictly
/// improves on the thread's best so far is searched, while its values are still
/// in registers, for the first element holding the new best (the first NaN for
/// a NaN). Rounds and the elements within one are visited in increasing index
/// order, so this picks the element the one-level fold picks. After the first
/// few rounds improvements are rare. (Reading the improving round again at the
/// end instead cost a quarter more DRAM traffic, measured when the loads carried
/// a 256-byte L2 prefetch hint: each isolated 16-byte load fetched 256 bytes.)
template <int U, int V, class Src, class B, class Op, class Acc>
__device__ __forceinline__ void fold_slots_arg(const Src& src, const B& b, const Op& op, index_t r0, index_t r1,
                                               index_t q0, index_t step, Acc& acc, bool& have) {
  using T = typename arg_fold<Op>::value_type;
  constexpr bool Max = arg_fold<Op>::max;
  using F = typename Src::fold_type;
  const index_t n = r1 - r0, nfull = n / V;
  for (index_t q = q0; q < nfull; q += U * step) {
    F v[U][V];
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (q + u * step < nfull) src.template at_vec_fold<V>(b, r0 + (q + u * step) * V, v[u]);
    // The round's best value: one chain per slot (independent), then the
    // slots' in a tree: about V + log2(U) dependent steps, not U V - 1 (the
    // next round's loads wait for them). A slot past the end is left out.
    static_assert((U & (U - 1)) == 0, "fold_slots_arg: a power-of-two round");
    T ms[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      ms[u] = static_cast<T>(v[u][0]);
#pragma unroll
      for (int j = 1; j < V; ++j) ms[u] = arg_better_value<Max>(ms[u], static_cast<T>(v[u][j]));
      if (u > 0 && !(q + u * step < nfull)) ms[u] = ms[0];
    }
#pragma unroll
    for (int h = U / 2; h >= 1; h /= 2)
#pragma unroll
      for (int k = 0; k < h; ++k) ms[k] = arg_better_value<Max>(ms[k], ms[k + h]);
    const T m = ms[0];
    if (!have || (!is_nan(acc.v) && (is_nan(m) || (Max ? acc.v < m : m < acc.v)))) {
      // The first (u, j) holding m, searched from the last one down.
      index_t at = 0;
#pragma unroll
      for (int u = U - 1; u >= 0; --u)
        if (q + u * step < nfull) {
#pragma unroll
          for (int j = V - 1; j >= 0; --j) {
            const T x = static_cast<T>(v[u][j]);
            if (is_nan(m) ? is_nan(x) : x == m) at = r0 + (q + u * step) * V + j;
          }
        }
      acc = Acc{m, at};
      have = true;
    }
  }
  // The last, partial slot (after every full one), element by element.
  if (nfull * V < n && nfull >= q0 && (nfull - q0) % step == 0)
    for (index_t e = r0 + nfull * V; e < r1; ++e) {
      const Acc x = src.at(b, e);
      acc = have ? combine_in_order(op, acc, x) : x;
      have = true;
    }
}

/// Chunk b is elements [b * chunk_len, min(R, (b + 1) * chunk_len)); chunk_len
/// is a multiple of V; the partial goes to store(b, 0, .).
template <int BLOCK, int U, int V, class Src, class Op, class Store>
__global__ void __launch_bounds__(BLOCK)
    reduce_arg_dense_kernel(Src src, Op op, Store store, index_t R, index_t chunk_len) {
  using Acc = typename Src::acc_type;
  using block_reduce = cub::BlockReduce<Acc, BLOCK>;
  __shared__ typename block_reduce::TempStorage tmp;
  const index_t r0 = static_cast<index_t>(blockIdx.x) * chunk_len;
  const index_t r1 = r0 + chunk_len < R ? r0 + chunk_len : R;
  const index_t nslots = (r1 - r0 + V - 1) / V;
  Acc acc{};
  bool have = false;
  fold_slots_arg<U, V>(src, index_t(0), op, r0, r1, index_t(threadIdx.x), index_t(BLOCK), acc, have);
  const Acc total = block_reduce(tmp).Reduce(acc, op, nslots < BLOCK ? static_cast<int>(nslots) : BLOCK);
  if (threadIdx.x == 0) store(static_cast<index_t>(blockIdx.x), 0, total);
}

}  // namespace ufunc::detail
