// CUDA backend of the sorts (ufunc::sort, argsort, topk, unique): CUB's radix
// sorts, which are stable and treat -0.0 and +0.0 as equal keys. One row:
// cub::DeviceRadixSort (SortKeys, or SortPairs with the positions as the
// payload); several rows: cub::DeviceSegmentedSort's stable sorts, one segment
// per row. NaNs arrive canonical (detail/sort.hpp), so a radix sort puts them
// after +inf in input order.
//
// DeviceSegmentedSort sorts its small and medium segments with a warp merge
// sort that compares the keys with `<`, under which a NaN is equivalent to
// every number (CUB 3.0: agent_sub_warp_merge_sort.cuh, BinaryOpT). So for
// floating keys over several rows: keys only, the NaNs become +inf for the
// sort (counted per row in the same pass, which is also the key copy: x's rows
// when contiguous, else in place in the caller's scratch copy) and each row's
// last `count` elements are written back as NaN (the values
// are exactly the stable order's); with positions, the sort runs on unsigned
// keys whose order is NumPy's (the float's bits, sign-flipped: -0.0 made +0.0,
// NaN above +inf) and the sorted values are gathered through the positions.
//
// Temporaries (stream-ordered, through the library's memory resource): CUB's
// own storage (about one more copy of the keys and of the payload), the
// positions' input, the unsigned keys, and the keys' output when the caller
// does not want it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>

#include "../../error.hpp"
#include "../../stream.hpp"
#include "../element.hpp"
#include "launch.hpp"
#include "scratch.hpp"

#if defined(__CUDACC__)
#  include <cub/device/device_for.cuh>
#  include <cub/device/device_radix_sort.cuh>
#  include <cub/device/device_segmented_sort.cuh>
#  include "kernels/topk_select.cuh"
#  include <cuda/std/cstring>
#  include <thrust/iterator/counting_iterator.h>
#  include <thrust/iterator/transform_iterator.h>
#endif

namespace ufunc::detail {

#if defined(__CUDACC__)
/// Row r's first element: r * L (the segments' begin and end offsets).
struct sort_row_offset {
  index_t L;
  __host__ __device__ index_t operator()(index_t r) const { return r * L; }
};
/// The payload of the pairs sorts: each element's position in its row.
struct sort_position {
  index_t* p;
  index_t L;
  __device__ void operator()(index_t i) const { p[i] = i % L; }
};
/// Keys only, several rows: dst = src with every NaN made +inf, and row r's
/// NaNs counted into cnt[r] (zeroed first) in the same pass; src may be dst.
/// The atomics and the division run for NaNs only.
template <class T>
struct sort_nan_to_inf {
  const T* src;
  T* dst;
  index_t* cnt;
  index_t L;
  __device__ void operator()(index_t i) const {
    T v = src[i];
    if (is_nan(v)) {
      v = cuda::std::numeric_limits<T>::infinity();
      atomicAdd(reinterpret_cast<unsigned long long*>(cnt + i / L), 1ull);
    }
    dst[i] = v;
  }
};
/// ... and the last nan[r] elements of each sorted row r (descending: the
/// first) become NaN again: 2^lanes items a row, item c writing the row's
/// NaN positions c, c + 2^lanes, ... (the items touch only the NaNs; one item
/// an element would divide by L for each of the n elements).
template <class T>
struct sort_nan_back {
  T* k;
  const index_t* nan;
  index_t L;
  int lanes;
  bool descending;
  __device__ void operator()(index_t i) const {
    const index_t r = i >> lanes, m = nan[r];
    T* row = k + r * L + (descending ? 0 : L - m);
    for (index_t j = i & ((index_t(1) << lanes) - 1); j < m; j += index_t(1) << lanes)
      row[j] = cuda::std::numeric_limits<T>::quiet_NaN();
  }
};
/// The unsigned key of a float whose order is NumPy's: -0.0 as +0.0, NaN (one
/// canonical quiet NaN) above +inf; negative values' bits inverted, positive
/// values' sign bit set.
template <class T, class U>
struct sort_ordered_bits {
  const T* k;
  U* out;
  __device__ void operator()(index_t i) const {
    T v = k[i];
    if (is_nan(v)) v = cuda::std::numeric_limits<T>::quiet_NaN();
    U b;
    ::cuda::std::memcpy(&b, &v, sizeof(U));
    constexpr U sign = U(U(1) << (8 * sizeof(U) - 1));
    if (b == sign) b = 0;  // -0.0: +0.0
    out[i] = (b & sign) ? U(~b) : U(b | sign);
  }
};
/// The sorted values through the sorted positions: out[i] = k[row start + pos[i]].
template <class T>
struct sort_gather {
  const T* k;
  const index_t* pos;
  T* out;
  index_t L;
  __device__ void operator()(index_t i) const { out[i] = k[(i / L) * L + pos[i]]; }
};
template <std::size_t N>
struct sort_bits;
template <>
struct sort_bits<2> {
  using type = unsigned short;
};
template <>
struct sort_bits<4> {
  using type = unsigned int;
};
template <>
struct sort_bits<8> {
  using type = unsigned long long;
};
/// topk's 32-bit order key of a key of at most 4 bytes (smaller first): floats as
/// sort_ordered_bits orders them (NaN canonical, above +inf; -0.0 as +0.0),
/// signed integers with the sign bit flipped, unsigned and bool as they are;
/// all bits inverted for a descending order (NaN first).
template <class T>
struct topk_key {
  bool descending;
  __device__ unsigned operator()(T v) const {
    using U = typename sort_bits<sizeof(T) < 2 ? 2 : sizeof(T)>::type;
    unsigned u;
    if constexpr (element_traits<T>::is_floating) {
      if (is_nan(v)) v = cuda::std::numeric_limits<T>::quiet_NaN();
      U b;
      ::cuda::std::memcpy(&b, &v, sizeof(U));
      constexpr U sign = U(U(1) << (8 * sizeof(U) - 1));
      if (b == sign) b = 0;
      u = static_cast<unsigned>((b & sign) ? U(~b) : U(b | sign));
    } else if constexpr (std::is_signed_v<T>) {
      u = static_cast<unsigned>(static_cast<long long>(v) - static_cast<long long>(cuda::std::numeric_limits<T>::min()));
    } else {
      u = static_cast<unsigned>(v);
    }
    return descending ? ~u : u;
  }
};
/// topk's values: the key, NaNs canonical (as detail/sort.hpp's key prep makes them).
template <class T>
struct topk_value {
  __device__ T operator()(T v) const { return is_nan(v) ? cuda::std::numeric_limits<T>::quiet_NaN() : v; }
};
#endif

template <class Target>
struct sort_backend;

template <>
struct sort_backend<target::cuda> {
  /// topk takes select() (a row per block, kernels/topk_select.cuh) for keys of
  /// at most 4 bytes, k <= 16 and k <= L / 8, over rows of at most 2^16 keys,
  /// and at least 256 of them unless they hold at most 4096 (a block per row
  /// needs rows to fill the GPU, and a long row is one SM's work); otherwise it
  /// sorts every row in full (detail/sort.hpp's topk_along).
  static constexpr index_t select_max_k = 16;  // kernels/topk_select.cuh's register list
  template <class T>
  static bool selects(index_t k, index_t L, index_t rows) {
    return sizeof(T) <= 4 && k <= select_max_k && k <= L / 8 && L <= (index_t(1) << 16) && (rows >= 256 || L <= 4096);
  }
  /// select() reads x's contiguous rows as they are (its keys canonicalise NaNs).
  static constexpr bool select_raw_keys = true;

  /// The first k of each of `rows` rows of L keys in the stable order
  /// (ascending with NaN last, or descending with NaN first; ties: the lower
  /// position first), values (NaNs canonical) into vals, positions into idx.
  /// Precondition: selects<T>(k, L).
  template <class T>
  static void select(const T* keys, index_t rows, index_t L, index_t k, T* vals, index_t* idx, bool descending,
                     stream_ref s) {
#if defined(__CUDACC__)
    static_assert(select_max_k == topk_select_k, "cuda/sort.hpp: select_max_k is the kernel's list length");
    if constexpr (sizeof(T) <= 4) {  // selects() is false for wider keys: no kernel for them
      if (rows == 0) return;
      const auto kernel = topk_select_kernel<topk_select_block, topk_select_k, T, topk_key<T>, topk_value<T>>;
      const unsigned grid = static_cast<unsigned>(std::min<index_t>(rows, index_t(1) << 30));
      kernel<<<grid, topk_select_block, 0, s.get()>>>(keys, rows, L, static_cast<int>(k), vals, idx,
                                                      topk_key<T>{descending}, topk_value<T>{});
      UFUNC_CUDA_CHECK(cudaGetLastError());
    } else {
      (void)keys, (void)rows, (void)L, (void)k, (void)vals, (void)idx, (void)descending, (void)s;
    }
#else
    (void)keys, (void)rows, (void)L, (void)k, (void)vals, (void)idx, (void)descending, (void)s;
    cuda_launch::require_nvcc<T>();
#endif
  }
  /// Floating keys only, several rows: detail/sort.hpp hands x's contiguous
  /// rows to run_float_rows, which makes the key copy itself (NaNs as +inf,
  /// counted in the same pass), instead of its canonical key-prep copy.
  static constexpr bool float_rows_prep = true;

  /// Keys only of `rows` > 1 contiguous rows of L floating keys `x` (not
  /// modified), sorted into keys_out; NaNs last (descending: first).
  template <class T>
  static void run_float_rows(const T* x, index_t rows, index_t L, T* keys_out, bool descending, stream_ref s) {
#if defined(__CUDACC__)
    if (rows * L == 0) return;
    device_temp k(static_cast<std::size_t>(rows * L) * sizeof(T), s);
    float_rows(x, static_cast<T*>(k.get()), rows, L, keys_out, descending, s);
#else
    (void)x, (void)rows, (void)L, (void)keys_out, (void)descending, (void)s;
    cuda_launch::require_nvcc<T>();
#endif
  }

  /// As sort_backend<host>::run. For floating T, `keys` is the caller's
  /// scratch copy (detail/sort.hpp's key prep), which this may overwrite.
  template <class T>
  static void run(const T* keys, index_t rows, index_t L, T* keys_out, index_t* idx_out, bool descending,
                  stream_ref s) {
#if defined(__CUDACC__)
    const index_t n = rows * L;
    if (n == 0) return;
    const cudaStream_t st = s.get();
    std::optional<device_temp> keys_tmp;
    if (!keys_out) {
      keys_tmp.emplace(static_cast<std::size_t>(n) * sizeof(T), s);
      keys_out = static_cast<T*>(keys_tmp->get());
    }
    std::optional<device_temp> pos_tmp;
    const index_t* pos = nullptr;
    if (idx_out) {
      pos_tmp.emplace(static_cast<std::size_t>(n) * sizeof(index_t), s);
      UFUNC_CUDA_CHECK(cub::DeviceFor::Bulk(n, sort_position{static_cast<index_t*>(pos_tmp->get()), L}, st));
      pos = static_cast<const index_t*>(pos_tmp->get());
    }
    if constexpr (!element_traits<T>::is_floating) {
      sort<T>(keys, rows, L, keys_out, pos, idx_out, descending, s);
    } else if (rows == 1) {
      sort<T>(keys, rows, L, keys_out, pos, idx_out, descending, s);
    } else if (!idx_out) {  // floating keys only, several rows: NaNs as +inf, then back
      float_rows(keys, const_cast<T*>(keys), rows, L, keys_out, descending, s);
    } else {  // floating keys with positions, several rows: unsigned keys in NumPy's order
      using U = typename sort_bits<sizeof(T)>::type;
      device_temp ub(static_cast<std::size_t>(n) * sizeof(U), s);
      U* u = static_cast<U*>(ub.get());
      UFUNC_CUDA_CHECK(cub::DeviceFor::Bulk(n, sort_ordered_bits<T, U>{keys, u}, st));
      sort<U>(u, rows, L, reinterpret_cast<U*>(keys_out), pos, idx_out, descending, s);  // keys_out: scratch here
      if (!keys_tmp) UFUNC_CUDA_CHECK(cub::DeviceFor::Bulk(n, sort_gather<T>{keys, idx_out, keys_out, L}, st));
    }
#else
    (void)keys, (void)rows, (void)L, (void)keys_out, (void)idx_out, (void)descending, (void)s;
    cuda_launch::require_nvcc<T>();
#endif
  }

 private:
#if defined(__CUDACC__)
  /// Floating keys only, several rows: src's keys copied into the scratch `k`
  /// (may be src) with NaNs as +inf and counted per row, sorted into keys_out,
  /// then each row's last (descending: first) count keys made NaN again.
  template <class T>
  static void float_rows(const T* src, T* k, index_t rows, index_t L, T* keys_out, bool descending, stream_ref s) {
    const index_t n = rows * L;
    const cudaStream_t st = s.get();
    device_temp nan(static_cast<std::size_t>(rows) * sizeof(index_t), s);
    index_t* cnt = static_cast<index_t*>(nan.get());
    UFUNC_CUDA_CHECK(cudaMemsetAsync(cnt, 0, static_cast<std::size_t>(rows) * sizeof(index_t), st));
    UFUNC_CUDA_CHECK(cub::DeviceFor::Bulk(n, sort_nan_to_inf<T>{src, k, cnt, L}, st));
    sort<T>(k, rows, L, keys_out, nullptr, nullptr, descending, s);
    int lanes = 5;  // 32 to 4096 items a row: a row of NaNs is written in L / 2^lanes steps
    while (lanes < 12 && (index_t(1) << (lanes + 4)) < L) ++lanes;
    UFUNC_CUDA_CHECK(cub::DeviceFor::Bulk(rows << lanes, sort_nan_back<T>{keys_out, cnt, L, lanes, descending}, st));
  }

  /// One CUB sort of `rows` rows of L keys (K: bool, integers, floats without NaN
  /// on several rows, or the unsigned keys), with the positions `pos` as the
  /// payload into idx_out when pos is not null.
  template <class K>
  static void sort(const K* keys, index_t rows, index_t L, K* keys_out, const index_t* pos, index_t* idx_out,
                   bool descending, stream_ref s) {
    const index_t n = rows * L;
    const cudaStream_t st = s.get();
    constexpr int bits = static_cast<int>(sizeof(K) * 8);
    auto begin = thrust::make_transform_iterator(thrust::counting_iterator<index_t>(0), sort_row_offset{L});
    auto end = begin + 1;
    auto go = [&](void* temp, std::size_t& bytes) -> cudaError_t {
      if (!pos) {
        if (rows == 1)
          return descending ? cub::DeviceRadixSort::SortKeysDescending(temp, bytes, keys, keys_out, n, 0, bits, st)
                            : cub::DeviceRadixSort::SortKeys(temp, bytes, keys, keys_out, n, 0, bits, st);
        return descending ? cub::DeviceSegmentedSort::StableSortKeysDescending(temp, bytes, keys, keys_out, n, rows,
                                                                                begin, end, st)
                          : cub::DeviceSegmentedSort::StableSortKeys(temp, bytes, keys, keys_out, n, rows, begin, end, st);
      }
      if (rows == 1)
        return descending ? cub::DeviceRadixSort::SortPairsDescending(temp, bytes, keys, keys_out, pos, idx_out, n, 0,
                                                                      bits, st)
                          : cub::DeviceRadixSort::SortPairs(temp, bytes, keys, keys_out, pos, idx_out, n, 0, bits, st);
      return descending ? cub::DeviceSegmentedSort::StableSortPairsDescending(temp, bytes, keys, keys_out, pos, idx_out,
                                                                               n, rows, begin, end, st)
                        : cub::DeviceSegmentedSort::StableSortPairs(temp, bytes, keys, keys_out, pos, idx_out, n, rows,
                                                                     begin, end, st);
    };
    std::size_t bytes = 0;
    UFUNC_CUDA_CHECK(go(nullptr, bytes));
    device_temp t(bytes, s);
    UFUNC_CUDA_CHECK(go(t.get(), bytes));
  }
#endif
};

}  // namespace ufunc::detail
