// topk's selection on the GPU (cuda/sort.hpp's select): one block a row. Each
// thread reads the row's elements at a stride of the block and keeps the K best
// (order key, position) pairs it has seen, sorted, in registers: a pair packs
// into 64 bits (the 32-bit order key above the position), so "better" is
// "smaller" and ties go to the lower position by construction. Then the block
// merges its threads' lists pairwise in shared memory (log2(Block) rounds of a
// K-step merge), and the first k of the survivor are the row's answer.
#pragma once

#include <cstdint>

#include "../../../config.hpp"

namespace ufunc::detail {

/// Kernel tuning: threads a row, and the register list's length (k <= K).
inline constexpr int topk_select_block = 128;
inline constexpr int topk_select_k = 16;

/// rows of L keys (row r at x + r * L, L < 2^32 - 1) -> the first k (<= K) of
/// each row in `key`'s order into vals / idx (rows x k). key(v): the element's
/// 32-bit order key (smaller first); value(v): what vals receives.
template <int Block, int K, class T, class Key, class Value>
__global__ void __launch_bounds__(Block) topk_select_kernel(const T* __restrict__ x, index_t rows, index_t L,
                                                            int k, T* __restrict__ vals, index_t* __restrict__ idx,
                                                            Key key, Value value) {
  __shared__ unsigned long long lists[Block * (K + 1)];  // K + 1: a thread's list starts in another bank
  constexpr unsigned long long none = ~0ull;             // after every real pair (positions < 2^32 - 1)
  for (index_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* row = x + r * L;
    unsigned long long best[K];
#pragma unroll
    for (int j = 0; j < K; ++j) best[j] = none;
    // U loads in flight before the inserts that wait on them (the row is read once;
    // 4 in flight ran 8192 rows of 8192 at 1.2 ms on an H200, latency-bound).
    constexpr int U = 8;
    for (index_t i0 = threadIdx.x; i0 < L; i0 += Block * U) {
      unsigned long long v[U];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const index_t i = i0 + u * Block;
        v[u] = i < L ? (static_cast<unsigned long long>(key(row[i])) << 32) | static_cast<unsigned long long>(i) : none;
      }
#pragma unroll
      for (int u = 0; u < U; ++u) {
        if (v[u] < best[K - 1]) {  // insert, keeping best sorted (all indices constant: registers)
#pragma unroll
          for (int j = K - 1; j > 0; --j)
            best[j] = v[u] < best[j - 1] ? best[j - 1] : (v[u] < best[j] ? v[u] : best[j]);
          best[0] = v[u] < best[0] ? v[u] : best[0];
        }
      }
    }
    unsigned long long* mine = lists + threadIdx.x * (K + 1);
#pragma unroll
    for (int j = 0; j < K; ++j) mine[j] = best[j];
    __syncthreads();
    for (int w = 1; w < Block; w *= 2) {
      if ((threadIdx.x & (2 * w - 1)) == 0) {  // merge the list w threads on into mine: the K smallest
        const unsigned long long* other = lists + (threadIdx.x + w) * (K + 1);
        int a = 0, b = 0;
#pragma unroll
        for (int j = 0; j < K; ++j) {
          const unsigned long long p = mine[a], q = other[b];
          const bool take_a = p <= q;
          best[j] = take_a ? p : q;
          a += take_a, b += !take_a;
        }
#pragma unroll
        for (int j = 0; j < K; ++j) mine[j] = best[j];
      }
      __syncthreads();
    }
    if (static_cast<int>(threadIdx.x) < k) {
      const index_t pos = static_cast<index_t>(lists[threadIdx.x] & 0xFFFFFFFFull);
      idx[r * k + threadIdx.x] = pos;
      vals[r * k + threadIdx.x] = value(row[pos]);
    }
    __syncthreads();  // lists is reused by the next row
  }
}

}  // namespace ufunc::detail
