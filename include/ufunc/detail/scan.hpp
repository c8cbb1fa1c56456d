// Inclusive scan along one axis (the ufunc method `accumulate`): CUB's device
// scan (by key, one key per segment, when there are several segments) on the
// CUDA target; a loop per segment, segments in parallel, on the host target.
#pragma once

#include <array>

#include "../stream.hpp"
#include "host/reduce.hpp"
#include "reduce.hpp"
#include "reduce_source.hpp"

#if defined(UFUNC_BACKEND_CUDA) && defined(__CUDACC__)
#  include <cub/device/device_scan.cuh>
#  include <thrust/iterator/counting_iterator.h>
#  include <thrust/iterator/permutation_iterator.h>
#  include <thrust/iterator/transform_iterator.h>
#endif

namespace ufunc::detail {

/// Segment-major element order: element i is position i % L of segment i / L.
/// Input 0 of the plans is the source, input 1 the (contiguous) result.
template <class Acc, class T>
struct scan_geometry {
  const T* x;
  nd_plan<2, std::uint64_t> kept;
  index_t L, step_x, step_out;
  UFUNC_HD void split(index_t i, index_t* off, index_t& r) const {
    const index_t o = i / L;
    r = i - o * L;
    kept.offsets(static_cast<std::uint64_t>(o), off);
  }
  UFUNC_HD Acc value(index_t i) const {
    index_t off[2], r;
    split(i, off, r);
    return static_cast<Acc>(x[off[0] + r * step_x]);
  }
  UFUNC_HD index_t out_offset(index_t i) const {
    index_t off[2], r;
    split(i, off, r);
    return off[1] + r * step_out;
  }
};

#if defined(UFUNC_BACKEND_CUDA) && defined(__CUDACC__)
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

/// out (contiguous, the shape of x) = inclusive scan of x along `axis` with op.
template <class Target, class Acc, class Op, class T>
void scan_axis(const acc_op<Acc, Op>& op, const operand_layout& x, int axis, Acc* out, stream_ref s) {
  const index_t n = x.shp.count();
  if (n == 0) return;
  operand_layout o;
  o.is_array = true;
  o.data = out;
  o.elem_size = sizeof(Acc);
  o.shp = x.shp;
  const auto st = contiguous_strides(x.shp);
  for (int d = 0; d < x.shp.size(); ++d) o.strides[static_cast<std::size_t>(d)] = st[static_cast<std::size_t>(d)];
  std::array<bool, max_rank> mask{};
  mask[static_cast<std::size_t>(axis)] = true;
  const auto g = make_geometry<2>(x.shp, mask, false, std::array<operand_layout, 2>{x, o});
  const scan_geometry<Acc, T> sg{static_cast<const T*>(x.data), make_plan<2, std::uint64_t>(g.kept), g.R,
                                 g.red.ndim ? g.red.strides[0][0] : 0, g.red.ndim ? g.red.strides[1][0] : 0};
  if constexpr (std::is_same_v<Target, target::host>) {
    (void)s;
    host::parallel_n(g.K, [&](index_t seg) {
      const index_t i0 = seg * g.R;
      Acc acc = sg.value(i0);
      out[sg.out_offset(i0)] = acc;
      for (index_t i = i0 + 1; i < i0 + g.R; ++i) {
        acc = op(acc, sg.value(i));
        out[sg.out_offset(i)] = acc;
      }
    });
  } else {
#if defined(UFUNC_BACKEND_CUDA) && defined(__CUDACC__)
    auto values = thrust::make_transform_iterator(thrust::counting_iterator<index_t>(0), scan_value_at<decltype(sg)>{sg});
    auto dst = thrust::make_permutation_iterator(
        out, thrust::make_transform_iterator(thrust::counting_iterator<index_t>(0), scan_out_at<decltype(sg)>{sg}));
    auto keys = thrust::make_transform_iterator(thrust::counting_iterator<index_t>(0), scan_segment_of{g.R});
    auto go = [&](void* temp, std::size_t& bytes) {
      if (g.K == 1) return cub::DeviceScan::InclusiveScan(temp, bytes, values, dst, op, n, s.get());
      return cub::DeviceScan::InclusiveScanByKey(temp, bytes, keys, values, dst, op, n, cuda::std::equal_to<>{},
                                                 s.get());
    };
    // One contiguous run (a 1-D array, or the last axis of a single row): plain
    // pointers, which CUB reads and writes with vector accesses.
    const bool flat = g.K == 1 && (g.R == 1 || (sg.step_x == 1 && sg.step_out == 1));
    auto go_flat = [&](void* temp, std::size_t& bytes) {
      auto in = thrust::make_transform_iterator(sg.x, scan_cast<Acc>{});
      return cub::DeviceScan::InclusiveScan(temp, bytes, in, out, op, n, s.get());
    };
    std::size_t bytes = 0;
    UFUNC_CUDA_CHECK(flat ? go_flat(nullptr, bytes) : go(nullptr, bytes));
    device_temp t(bytes, s);
    UFUNC_CUDA_CHECK(flat ? go_flat(t.get(), bytes) : go(t.get(), bytes));
#else
    cuda_launch::require_nvcc<T>();
#endif
  }
}

}  // namespace ufunc::detail
