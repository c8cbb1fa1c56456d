// CUDA backend of the sorts (ufunc::sort, argsort, topk, unique): CUB's radix
// sorts, which are stable. One row: cub::DeviceRadixSort; several rows:
// cub::DeviceSegmentedSort's stable sorts, one segment per row. Two kinds:
// - keys only, ascending (sort, unique): CUB sorts the keys as they are. NaNs
//   arrive canonical (detail/sort.hpp), so a radix sort puts them after +inf
//   in input order, and treats -0.0 and +0.0 as equal keys.
//   DeviceSegmentedSort sorts its small and medium segments with a warp merge
//   sort that compares the keys with `<`, under which a NaN is equivalent to
//   every number (CUB 3.0: agent_sub_warp_merge_sort.cuh, BinaryOpT). So for
//   floating keys over several rows the NaNs become +inf for the sort
//   (counted per row in the same pass, which is also the key copy: x's rows
//   when contiguous, else in place in the caller's scratch copy) and each
//   row's last `count` elements are written back as NaN (the values are
//   exactly the stable order's).
// - with positions (argsort, topk, unique's indices) or descending (topk's
//   largest): CUB sorts the keys' order bits (detail/sort_bits.hpp: an
//   unsigned integer of the key's width in NumPy's order; all bits inverted
//   for descending) with the positions as the payload, and the sorted values,
//   where wanted, come back from the sorted bits (a zero's sign from its key).
//   argsort's bits are made in detail/sort.hpp's key copy. So a translation
//   unit compiles CUB's pairs sorts once per key width, and no descending
//   sort: a sort or argsort call site cost about 40 s of nvcc -O3 with every
//   CUB sort instantiated for its key type, 12 s now (bench/NOTES.md,
//   session of 2026-11-30, twenty-second).
//
// Temporaries (stream-ordered, through the library's memory resource): CUB's
// own storage (about one more copy of the keys and of the payload), the
// positions' input, the order bits, and the keys' output when the caller
// does not want it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>

#include "../../error.hpp"
#include "../../stream.hpp"
#include "../element.hpp"
#include "../sort_bits.hpp"
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
/// ... and the last nan[r] elements of each sorted row r become NaN again:
/// 2^lanes items a row, item c writing the row's NaN positions c, c + 2^lanes,
/// ... (the items touch only the NaNs; one item an element would divide by L
/// for each of the n elements).
template <class T>
struct sort_nan_back {
  T* k;
  const index_t* nan;
  index_t L;
  int lanes;
  __device__ void operator()(index_t i) const {
    const index_t r = i >> lanes, m = nan[r];
    T* row = k + r * L + (L - m);
    for (index_t j = i & ((index_t(1) << lanes) - 1); j < m; j += index_t(1) << lanes)
      row[j] = cuda::std::numeric_limits<T>::quiet_NaN();
  }
};
/// The order bits (detail/sort_bits.hpp) of keys k into out, all bits
/// inverted when `flip` is all ones (a descending order, NaN first).
template <class T>
struct sort_to_bits {
  const T* k;
  sort_uint_t<T>* out;
  sort_uint_t<T> flip;
  __device__ void operator()(index_t i) const { out[i] = sort_uint_t<T>(sort_order_bits(k[i]) ^ flip); }
};
/// The sorted values from the sorted order bits, in place: `out` holds the
/// order bits (^ flip) on entry and the values on return; a zero's sign is
/// read from its key (k at the row's start + its position), the one value the
/// bits do not keep (NaNs come back canonical, as the key copy made them).
template <class T>
struct sort_bits_back {
  const T* k;
  const index_t* pos;
  T* out;
  index_t L;
  sort_uint_t<T> flip;
  __device__ void operator()(index_t i) const {
    sort_uint_t<T> e;
    ::cuda::std::memcpy(&e, out + i, sizeof(e));  // bytes: out is read as bits, then written as T
    e = sort_uint_t<T>(e ^ flip);
    T v = sort_from_order_bits<T>(e);
    if constexpr (element_traits<T>::is_floating) {
      if (e == sort_zero_bits<T>) v = k[(i / L) * L + pos[i]];
    }
    out[i] = v;
  }
};
/// topk's 32-bit order key of a key of at most 4 bytes (smaller first): its
/// order bits (detail/sort_bits.hpp) widened, all bits inverted for a
/// descending order (NaN first).
template <class T>
struct topk_key {
  bool descending;
  __device__ unsigned operator()(T v) const {
    const unsigned u = static_cast<unsigned>(sort_order_bits(v));
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
  /// modified), sorted ascending into keys_out; NaNs last.
  template <class T>
  static void run_float_rows(const T* x, index_t rows, index_t L, T* keys_out, stream_ref s) {
#if defined(__CUDACC__)
    if (rows * L == 0) return;
    device_temp k(static_cast<std::size_t>(rows * L) * sizeof(T), s);
    float_rows(x, static_cast<T*>(k.get()), rows, L, keys_out, s);
#else
    (void)x, (void)rows, (void)L, (void)keys_out, (void)s;
    cuda_launch::require_nvcc<T>();
#endif
  }

  /// As sort_backend<host>::run_keys (keys only, ascending): CUB sorts the
  /// keys themselves. For floating T, `keys` is the caller's scratch copy
  /// (detail/sort.hpp's key prep), which this may overwrite.
  template <class T>
  static void run_keys(const T* keys, index_t rows, index_t L, T* keys_out, stream_ref s) {
#if defined(__CUDACC__)
    if (rows * L == 0) return;
    if constexpr (element_traits<T>::is_floating) {
      if (rows > 1) {  // several rows: NaNs as +inf, then back
        float_rows(keys, const_cast<T*>(keys), rows, L, keys_out, s);
        return;
      }
    }
    sort_keys<T>(keys, rows, L, keys_out, s);
#else
    (void)keys, (void)rows, (void)L, (void)keys_out, (void)s;
    cuda_launch::require_nvcc<T>();
#endif
  }

  /// As sort_backend<host>::run (keys_out and idx_out each may be null): CUB
  /// sorts the keys' order bits (all bits inverted when descending) with the
  /// positions, and the sorted values come back from the sorted bits. `keys`
  /// is not modified.
  template <class T>
  static void run(const T* keys, index_t rows, index_t L, T* keys_out, index_t* idx_out, bool descending,
                  stream_ref s) {
#if defined(__CUDACC__)
    const index_t n = rows * L;
    if (n == 0 || (!keys_out && !idx_out)) return;
    using U = sort_uint_t<T>;
    const U flip = descending ? U(~U(0)) : U(0);
    device_temp ub(static_cast<std::size_t>(n) * sizeof(U), s);
    U* u = static_cast<U*>(ub.get());
    UFUNC_CUDA_CHECK(cub::DeviceFor::Bulk(n, sort_to_bits<T>{keys, u, flip}, s.get()));
    order_pairs<T>(u, rows, L, keys_out, idx_out, keys, flip, s);
#else
    (void)keys, (void)rows, (void)L, (void)keys_out, (void)idx_out, (void)descending, (void)s;
    cuda_launch::require_nvcc<T>();
#endif
  }

  /// argsort's keys arrive as order bits (detail/sort.hpp makes them in its
  /// key copy: sort_key_bits<T>, or x itself for bool and unsigned keys).
  static constexpr bool sorts_order_bits = true;
  /// The positions that sort each of `rows` rows of L order bits `bits`
  /// (sort_key_bits<T>'s, in T's storage; not modified) stably ascending,
  /// into idx_out.
  template <class T>
  static void run_bits(const T* bits, index_t rows, index_t L, index_t* idx_out, stream_ref s) {
#if defined(__CUDACC__)
    if (rows * L == 0) return;
    order_pairs<T>(reinterpret_cast<const sort_uint_t<T>*>(bits), rows, L, nullptr, idx_out, nullptr,
                   sort_uint_t<T>(0), s);
#else
    (void)bits, (void)rows, (void)L, (void)idx_out, (void)s;
    cuda_launch::require_nvcc<T>();
#endif
  }

 private:
#if defined(__CUDACC__)
  /// Floating keys only, several rows, ascending: src's keys copied into the
  /// scratch `k` (may be src) with NaNs as +inf and counted per row, sorted
  /// into keys_out, then each row's last count keys made NaN again.
  template <class T>
  static void float_rows(const T* src, T* k, index_t rows, index_t L, T* keys_out, stream_ref s) {
    const index_t n = rows * L;
    const cudaStream_t st = s.get();
    device_temp nan(static_cast<std::size_t>(rows) * sizeof(index_t), s);
    index_t* cnt = static_cast<index_t*>(nan.get());
    UFUNC_CUDA_CHECK(cudaMemsetAsync(cnt, 0, static_cast<std::size_t>(rows) * sizeof(index_t), st));
    UFUNC_CUDA_CHECK(cub::DeviceFor::Bulk(n, sort_nan_to_inf<T>{src, k, cnt, L}, st));
    sort_keys<T>(k, rows, L, keys_out, s);
    int lanes = 5;  // 32 to 4096 items a row: a row of NaNs is written in L / 2^lanes steps
    while (lanes < 12 && (index_t(1) << (lanes + 4)) < L) ++lanes;
    UFUNC_CUDA_CHECK(cub::DeviceFor::Bulk(rows << lanes, sort_nan_back<T>{keys_out, cnt, L, lanes}, st));
  }

  /// The order bits `u` (rows of L) sorted stably ascending with their
  /// positions as the payload, into idx_out (a temporary when null); the
  /// sorted values into keys_out when it is not null (from the sorted bits ^
  /// flip, the zeros' signs from `keys`).
  template <class T>
  static void order_pairs(const sort_uint_t<T>* u, index_t rows, index_t L, T* keys_out, index_t* idx_out,
                          const T* keys, sort_uint_t<T> flip, stream_ref s) {
    using U = sort_uint_t<T>;
    const index_t n = rows * L;
    if (n == 0) return;
    device_temp pos(static_cast<std::size_t>(n) * sizeof(index_t), s);
    UFUNC_CUDA_CHECK(cub::DeviceFor::Bulk(n, sort_position{static_cast<index_t*>(pos.get()), L}, s.get()));
    std::optional<device_temp> idx_tmp, out_tmp;
    if (!idx_out) {
      idx_tmp.emplace(static_cast<std::size_t>(n) * sizeof(index_t), s);
      idx_out = static_cast<index_t*>(idx_tmp->get());
    }
    if (!keys_out) out_tmp.emplace(static_cast<std::size_t>(n) * sizeof(U), s);
    U* sorted = keys_out ? reinterpret_cast<U*>(keys_out) : static_cast<U*>(out_tmp->get());
    sort_pairs<U>(u, rows, L, sorted, static_cast<const index_t*>(pos.get()), idx_out, s);
    if (keys_out) UFUNC_CUDA_CHECK(cub::DeviceFor::Bulk(n, sort_bits_back<T>{keys, idx_out, keys_out, L, flip}, s.get()));
  }

  /// CUB's two calls (the temporary's size, then the sort) of `go`.
  template <class Go>
  static void cub_sort(const Go& go, stream_ref s) {
    std::size_t bytes = 0;
    UFUNC_CUDA_CHECK(go(nullptr, bytes));
    device_temp t(bytes, s);
    UFUNC_CUDA_CHECK(go(t.get(), bytes));
  }

  /// One CUB keys sort, ascending, of `rows` rows of L keys K (bool, integers,
  /// or floats without NaN on several rows: DeviceSegmentedSort compares them).
  template <class K>
  static void sort_keys(const K* keys, index_t rows, index_t L, K* keys_out, stream_ref s) {
    const index_t n = rows * L;
    const cudaStream_t st = s.get();
    auto begin = thrust::make_transform_iterator(thrust::counting_iterator<index_t>(0), sort_row_offset{L});
    cub_sort(
        [&](void* temp, std::size_t& bytes) -> cudaError_t {
          if (rows == 1) return cub::DeviceRadixSort::SortKeys(temp, bytes, keys, keys_out, n, 0, int(sizeof(K) * 8), st);
          return cub::DeviceSegmentedSort::StableSortKeys(temp, bytes, keys, keys_out, n, rows, begin, begin + 1, st);
        },
        s);
  }

  /// One CUB pairs sort, ascending, of `rows` rows of L unsigned keys U with
  /// the positions `pos` as the payload into idx_out.
  template <class U>
  static void sort_pairs(const U* keys, index_t rows, index_t L, U* keys_out, const index_t* pos, index_t* idx_out,
                         stream_ref s) {
    const index_t n = rows * L;
    const cudaStream_t st = s.get();
    auto begin = thrust::make_transform_iterator(thrust::counting_iterator<index_t>(0), sort_row_offset{L});
    cub_sort(
        [&](void* temp, std::size_t& bytes) -> cudaError_t {
          if (rows == 1)
            return cub::DeviceRadixSort::SortPairs(temp, bytes, keys, keys_out, pos, idx_out, n, 0, int(sizeof(U) * 8), st);
          return cub::DeviceSegmentedSort::StableSortPairs(temp, bytes, keys, keys_out, pos, idx_out, n, rows, begin,
                                                           begin + 1, st);
        },
        s);
  }
#endif
};

}  // namespace ufunc::detail
