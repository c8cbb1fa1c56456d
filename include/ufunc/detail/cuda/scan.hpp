// CUDA backend of the scan (the ufunc method accumulate): CUB's device scan, by
// key (one key per segment) when there are several segments.
#pragma once

#include <type_traits>

#include "../../error.hpp"
#include "../../ops.hpp"
#include "../../stream.hpp"
#include "../reduce_source.hpp"
#include "launch.hpp"
#include "scratch.hpp"

#if defined(__CUDACC__)
#  include <cub/device/device_scan.cuh>
#  include <thrust/iterator/counting_iterator.h>
#  include <thrust/iterator/permutation_iterator.h>
#  include <thrust/iterator/transform_iterator.h>
#endif

namespace ufunc::detail {

#if defined(__CUDACC__)
template <class G>
struct scan_value_at {
  G g;
  __host__ __device__ auto operator()(index_t i) const { return g.value(i); }
};
template <class G>
struct scan_out_at {
  G g;
  __host__ __device__ index_t operator()(index_t i) const { return g.out_offset(i); }
};
template <class Acc>
struct scan_cast {
  template <class T>
  __host__ __device__ Acc operator()(const T& v) const { return static_cast<Acc>(v); }
};
struct scan_segment_of {
  index_t L;
  __host__ __device__ index_t operator()(index_t i) const { return i / L; }
};
#endif

template <class Target>
struct scan_backend;

template <>
struct scan_backend<target::cuda> {
  /// As scan_backend<host>::run (G is a scan_geometry); contiguous single segments read and write plain
  /// pointers.
  template <class Acc, class Op, class G>
  static void run(const acc_op<Acc, Op>& op, const G& sg, index_t K, index_t R, Acc* out, stream_ref s) {
#if defined(__CUDACC__)
    const index_t n = K * R;
    auto values = thrust::make_transform_iterator(thrust::counting_iterator<index_t>(0), scan_value_at<G>{sg});
    auto dst = thrust::make_permutation_iterator(
        out, thrust::make_transform_iterator(thrust::counting_iterator<index_t>(0), scan_out_at<G>{sg}));
    auto keys = thrust::make_transform_iterator(thrust::counting_iterator<index_t>(0), scan_segment_of{R});
    auto go = [&](void* temp, std::size_t& bytes) {
      if (K == 1) return cub::DeviceScan::InclusiveScan(temp, bytes, values, dst, op, n, s.get());
      return cub::DeviceScan::InclusiveScanByKey(temp, bytes, keys, values, dst, op, n, cuda::std::equal_to<>{},
                                                 s.get());
    };
    // One contiguous run (a 1-D array, or the last axis of a single row): plain
    // pointers, which CUB reads and writes with vector accesses. Where x already
    // holds Acc, CUB reads x itself (not through a converting iterator), and a
    // sum of arithmetic values is CUB's InclusiveSum (its tuned plus: 0.81 of
    // its speed through the iterator and acc_op on an H200, 2026-11-29).
    const bool flat = K == 1 && (R == 1 || (sg.step_x == 1 && sg.step_out == 1));
    using T = std::remove_cv_t<std::remove_pointer_t<decltype(sg.x)>>;
    auto go_flat = [&](void* temp, std::size_t& bytes) {
      if constexpr (std::is_same_v<T, Acc> && std::is_same_v<Op, plus> && std::is_arithmetic_v<Acc>) {
        return cub::DeviceScan::InclusiveSum(temp, bytes, sg.x, out, n, s.get());
      } else if constexpr (std::is_same_v<T, Acc>) {
        return cub::DeviceScan::InclusiveScan(temp, bytes, sg.x, out, op, n, s.get());
      } else {
        auto in = thrust::make_transform_iterator(sg.x, scan_cast<Acc>{});
        return cub::DeviceScan::InclusiveScan(temp, bytes, in, out, op, n, s.get());
      }
    };
    std::size_t bytes = 0;
    UFUNC_CUDA_CHECK(flat ? go_flat(nullptr, bytes) : go(nullptr, bytes));
    device_temp t(bytes, s);
    UFUNC_CUDA_CHECK(flat ? go_flat(t.get(), bytes) : go(t.get(), bytes));
#else
    (void)op, (void)sg, (void)K, (void)R, (void)out, (void)s;
    cuda_launch::require_nvcc<G>();
#endif
  }
};

}  // namespace ufunc::detail
