// argmin/argmax of one contiguous array (a whole reduction): one thread block
// per chunk, in one wave, each thread folding its 16-byte slots to a best value,
// then block reductions to one partial per chunk (reduce_arg_dense_kernel). The
// row kernel's work without its loop over (output, chunk) items, whose 64-bit
// divisions and extra state cost registers and so resident blocks.
#pragma once

#include <cuda/std/limits>
#include <type_traits>

#include <cub/block/block_reduce.cuh>
#include <cub/thread/thread_load.cuh>

#include "../../sort_bits.hpp"
#include "grid_dependency.cuh"
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

/// argmin/argmax partials as one 64-bit word whose unsigned order is the
/// pick's (arg_pick): the value's 32-bit key (larger is better; every NaN the
/// largest) above the complement of the index (the lower index wins a tie).
/// The key is the value's sort order bits (sort_bits.hpp: -0 and +0 one code,
/// as they compare equal), widened, inverted for argmin, NaN set apart. For
/// values of at most 32 bits and arrays of fewer than 2^32 elements (a zero
/// word is below every packed partial).
template <class T>
inline constexpr bool arg_packs_type = sizeof(T) <= 4 && (element_traits<T>::is_floating || std::is_integral_v<T>);
template <class T>
UFUNC_HD constexpr bool arg_packs(index_t R) {
  return arg_packs_type<T> && R <= index_t(0xFFFFFFFF);
}

template <bool Max, class T>
UFUNC_HD inline unsigned arg_key(T v) {
  if (is_nan(v)) return 0xFFFFFFFFu;  // either way; a float's other keys stay below it
  const auto u = static_cast<unsigned>(sort_order_bits(v));
  return Max ? u : ~u;
}

/// arg_key's inverse (a NaN comes back as the quiet NaN; a zero as +0).
template <bool Max, class T>
UFUNC_HD inline T arg_key_value(unsigned k) {
  if constexpr (element_traits<T>::is_floating)
    if (k == 0xFFFFFFFFu) return cuda::std::numeric_limits<T>::quiet_NaN();
  return sort_from_order_bits<T>(static_cast<sort_uint_t<T>>(Max ? k : ~k));
}

/// One chunk of a whole argmin/argmax a block, in three steps, so that the loop
/// over the data carries no branch and no index:
/// 1. Each thread folds rounds of U slots of V values (V-wide loads, slots
///    q0, q0 + step, ...) to each round's best value (one max.NaN per element
///    for float: a chain per slot, then the slots' in a tree) and keeps its best
///    value and the first round that reached it (a round strictly improves on
///    the best so far, or holds its first NaN). The last, partial slot's
///    elements (after every full slot) are folded as values too.
/// 2. A block reduction of the values gives the chunk's best, M.
/// 3. Only the threads whose best is M search for its first index, reading
///    that round again (a few loads a block; with ties, at most one round a
///    thread), or the partial slot; a block minimum of the indices.
/// H200, argmax of 2^27 floats / read kernel: 0.943 against 0.906 for the
/// former fold, which searched every improving round while its values were in
/// registers (a branch in the loop: 39 registers, 6 blocks an SM, against 32
/// and 8 with 32-bit offsets; bench/NOTES.md, session 26).
/// 4. With `done` (a counter at zero, scratch.hpp's finish_counters), the last
///    block to finish combines every block's partial (store.partial) in block
///    order and stores the result (store.result), then sets the counter back to
///    zero: no second pass to launch (H200, argmax of 2^27 floats / read
///    kernel: 0.945-0.946 -> 0.948-0.956; bench/NOTES.md, session 27). Where
///    the partials pack (arg_packs), each block folds its own into the
///    counter's word (finish_word) with one atomic max instead, and the last
///    block reads that word alone (store.partial unused): no loads of
///    partials and no block reduction in the block the kernel's end waits for.
/// Chunk b is elements [b * chunk_len, min(R, (b + 1) * chunk_len)); chunk_len
/// is a multiple of V and at most 2^30 (32-bit offsets within a chunk); the
/// partial goes to store(b, 0, .).
template <int BLOCK, int U, int V, class Src, class Op, class Store>
__global__ void __launch_bounds__(BLOCK)
    reduce_arg_dense_kernel(Src src, Op op, Store store, index_t R, index_t chunk_len, unsigned* done) {
  using Acc = typename Src::acc_type;
  using T = typename arg_fold<Op>::value_type;
  constexpr bool Max = arg_fold<Op>::max;
  using F = typename Src::fold_type;
  static_assert((U & (U - 1)) == 0, "reduce_arg_dense_kernel: a power-of-two round");
  struct better_value {
    __device__ T operator()(const T& a, const T& b) const { return arg_better_value<Max>(a, b); }
  };
  struct lower_index {
    __device__ index_t operator()(index_t a, index_t b) const { return a < b ? a : b; }
  };
  using value_reduce = cub::BlockReduce<T, BLOCK>;
  using index_reduce = cub::BlockReduce<index_t, BLOCK>;
  using acc_reduce = cub::BlockReduce<Acc, BLOCK>;
  __shared__ union {
    typename value_reduce::TempStorage v;
    typename index_reduce::TempStorage i;
    typename acc_reduce::TempStorage a;
  } tmp;
  __shared__ T chunk_best;
  const index_t b = 0;
  const index_t r0 = static_cast<index_t>(blockIdx.x) * chunk_len;
  Src c = src;  // this chunk's elements from 0: 32-bit offsets in the loop
  c.p += r0;
  const int n = static_cast<int>((r0 + chunk_len < R ? r0 + chunk_len : R) - r0), nfull = n / V;
  const int nslots = (n + V - 1) / V;
  const int q0 = static_cast<int>(threadIdx.x);
  constexpr int step = BLOCK;
  const int valid = nslots < BLOCK ? nslots : BLOCK;  // threads with elements: 0 .. valid - 1
  auto improves = [](const T& m, const T& best) {
    return !is_nan(best) && (is_nan(m) || (Max ? best < m : m < best));
  };
  // 1. The thread's best value and the first round (its first slot) holding it.
  T best{};
  int bq = -1;
  for (int q = q0; q < nfull; q += U * step) {
    F v[U][V];
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (q + u * step < nfull) c.template at_vec_fold<V>(b, (q + u * step) * V, v[u]);
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
    const bool up = bq < 0 || improves(ms[0], best);
    best = up ? ms[0] : best;
    bq = up ? q : bq;
  }
  trigger_dependents();  // the second pass (finish_one) may be scheduled
  const int e0 = nfull * V;  // the partial slot's first element
  const bool owns_tail = e0 < n && nfull >= q0 && (nfull - q0) % step == 0;
  T mine = best;
  if (owns_tail)
    for (int e = e0; e < n; ++e) {
      const T x = c.at(b, e).v;
      mine = (bq < 0 && e == e0) ? x : arg_better_value<Max>(mine, x);
    }
  // 2. The chunk's best value.
  const T m = value_reduce(tmp.v).Reduce(mine, better_value{}, valid);
  if (threadIdx.x == 0) chunk_best = m;
  __syncthreads();
  const T M = chunk_best;
  // 3. Its first index: full slots come before the partial one.
  auto same = [&](const T& x) { return is_nan(M) ? is_nan(x) : x == M; };
  index_t at = cuda::std::numeric_limits<index_t>::max();
  if (bq >= 0 && same(best)) {
#pragma unroll
    for (int u = U - 1; u >= 0; --u)
      if (bq + u * step < nfull) {
        F w[V];
        c.template at_vec_fold<V>(b, (bq + u * step) * V, w);
#pragma unroll
        for (int j = V - 1; j >= 0; --j)
          if (same(static_cast<T>(w[j]))) at = r0 + (bq + u * step) * V + j;
      }
  } else if (owns_tail) {
    for (int e = n - 1; e >= e0; --e)
      if (same(c.at(b, e).v)) at = r0 + e;
  }
  const index_t first = index_reduce(tmp.i).Reduce(at, lower_index{}, valid);
  if (!done) {
    if (threadIdx.x == 0) store(static_cast<index_t>(blockIdx.x), 0, Acc{M, first});
    return;
  }
  // 4. The last block to finish combines the partials.
  if constexpr (arg_packs_type<T>)
    if (arg_packs<T>(R)) {
      unsigned long long* word = finish_word(done);
      if (threadIdx.x == 0)
        atomicMax(word, (static_cast<unsigned long long>(arg_key<Max>(M)) << 32) |
                            (0xFFFFFFFFu - static_cast<unsigned>(first)));
      if (!last_block_arrives(done)) return;
      if (threadIdx.x == 0) {
        const unsigned long long w = atomicExch(word, 0ull);
        store.result(0, Acc{arg_key_value<Max, T>(static_cast<unsigned>(w >> 32)),
                            static_cast<index_t>(0xFFFFFFFFu - static_cast<unsigned>(w))});
        *done = 0;  // for the stream's next kernel
      }
      return;
    }
  if (threadIdx.x == 0) store(static_cast<index_t>(blockIdx.x), 0, Acc{M, first});
  if (!last_block_arrives(done)) return;
  const Acc* p = store.partial;
  const int G = static_cast<int>(gridDim.x);
  constexpr int L = 4;  // partials in flight a thread
  Acc acc{};
  for (int i0 = static_cast<int>(threadIdx.x); i0 < G; i0 += L * BLOCK) {
    Acc w[L];
#pragma unroll
    for (int u = 0; u < L; ++u)
      if (i0 + u * BLOCK < G) w[u] = cub::ThreadLoad<cub::LOAD_CG>(p + i0 + u * BLOCK);
#pragma unroll
    for (int u = 0; u < L; ++u)
      if (i0 + u * BLOCK < G) acc = (i0 == static_cast<int>(threadIdx.x) && u == 0) ? w[u] : op(acc, w[u]);
  }
  const Acc r = acc_reduce(tmp.a).Reduce(acc, op, G < BLOCK ? G : BLOCK);
  if (threadIdx.x == 0) {
    store.result(0, r);
    *done = 0;  // for the stream's next kernel
  }
}

}  // namespace ufunc::detail
