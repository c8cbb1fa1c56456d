// CUDA backend of the sorts (ufunc::sort, argsort, topk, unique): CUB's radix
// sorts, which are stable and treat -0.0 and +0.0 as equal keys. One row:
// cub::DeviceRadixSort (SortKeys, or SortPairs with the positions as the
// payload); several rows: cub::DeviceSegmentedSort's stable sorts, one segment
// per row. NaNs arrive canonical (detail/sort.hpp), so they sort after +inf in
// input order. Temporaries (stream-ordered, through the library's memory
// resource): CUB's own storage (about one more copy of the keys and of the
// payload), the positions' input, and the keys' output when the caller does
// not want it.
#pragma once

#include <cstddef>
#include <optional>

#include "../../error.hpp"
#include "../../stream.hpp"
#include "launch.hpp"
#include "scratch.hpp"

#if defined(__CUDACC__)
#  include <cub/device/device_for.cuh>
#  include <cub/device/device_radix_sort.cuh>
#  include <cub/device/device_segmented_sort.cuh>
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
#endif

template <class Target>
struct sort_backend;

template <>
struct sort_backend<target::cuda> {
  /// As sort_backend<host>::run.
  template <class T>
  static void run(const T* keys, index_t rows, index_t L, T* keys_out, index_t* idx_out, bool descending,
                  stream_ref s) {
#if defined(__CUDACC__)
    const index_t n = rows * L;
    if (n == 0) return;
    const cudaStream_t st = s.get();
    constexpr int bits = static_cast<int>(sizeof(T) * 8);
    std::optional<device_temp> keys_tmp;
    if (!keys_out) {
      keys_tmp.emplace(static_cast<std::size_t>(n) * sizeof(T), s);
      keys_out = static_cast<T*>(keys_tmp->get());
    }
    auto begin = thrust::make_transform_iterator(thrust::counting_iterator<index_t>(0), sort_row_offset{L});
    auto end = begin + 1;
    std::optional<device_temp> pos_tmp;
    const index_t* pos = nullptr;
    if (idx_out) {
      pos_tmp.emplace(static_cast<std::size_t>(n) * sizeof(index_t), s);
      UFUNC_CUDA_CHECK(cub::DeviceFor::Bulk(n, sort_position{static_cast<index_t*>(pos_tmp->get()), L}, st));
      pos = static_cast<const index_t*>(pos_tmp->get());
    }
    auto go = [&](void* temp, std::size_t& bytes) -> cudaError_t {
      if (!idx_out) {
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
#else
    (void)keys, (void)rows, (void)L, (void)keys_out, (void)idx_out, (void)descending, (void)s;
    cuda_launch::require_nvcc<T>();
#endif
  }
};

}  // namespace ufunc::detail
