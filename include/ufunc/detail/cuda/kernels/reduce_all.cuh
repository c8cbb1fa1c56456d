// Whole-array reduction (one output) of one contiguous input through
// cub::DeviceReduce::TransformReduce: CUB's tuned single-pass-per-tile kernels,
// with the map applied after its (vectorised) loads, so a fused map costs no
// extra memory traffic. Other whole reductions (several inputs, argmin/argmax,
// broadcasting, strides) take the row kernels instead: one CUB instantiation per
// offset width and call site.
#pragma once

#include <cub/device/device_reduce.cuh>
#include <thrust/iterator/transform_output_iterator.h>

#include <climits>
#include <type_traits>

#include "../../reduce_source.hpp"

namespace ufunc::detail {

/// Contiguous single input: element -> accumulator.
template <class Map, class Lift>
struct map_lift {
  Map map;
  Lift lift;
  template <class T>
  __host__ __device__ auto operator()(const T& v) const { return lift(map(v), index_t(0)); }
};

template <class F>
struct wrap_maybe {
  F f;
  template <class X>
  __host__ __device__ auto operator()(const X& x) const {
    using A = decltype(f(x));
    return maybe<A>{f(x), true};
  }
};

template <class Res, class Fin>
struct store_finished {
  Fin fin;
  template <class A>
  __host__ __device__ Res operator()(const A& a) const { return static_cast<Res>(fin(a)); }
  template <class A>
  __host__ __device__ Res operator()(const maybe<A>& a) const { return static_cast<Res>(fin(a.v)); }
};

/// One CUB call; with temp == nullptr it only sets `bytes` (CUB's two-phase
/// protocol). HasInit: start from `init` (an identity or the user's value);
/// otherwise reduce `maybe` values so that no identity is needed.
template <bool HasInit, class In, class Xform, class Acc, class Op, class Fin, class Res>
cudaError_t cub_reduce_all(void* temp, std::size_t& bytes, In in, const Xform& x, index_t n, const acc_op<Acc, Op>& op,
                           const Acc& init, const Fin& fin, Res* out, cudaStream_t s) {
  auto o = thrust::make_transform_output_iterator(out, store_finished<Res, Fin>{fin});
  auto go = [&](auto count) {
    if constexpr (HasInit)
      return cub::DeviceReduce::TransformReduce(temp, bytes, in, o, count, op, x, init, s);
    else
      return cub::DeviceReduce::TransformReduce(temp, bytes, in, o, count, maybe_op<Acc, Op>{op}, wrap_maybe<Xform>{x},
                                                maybe<Acc>{Acc{}, false}, s);
  };
  // 32-bit offsets when they suffice (CUB's fastest instantiation).
  if (n <= INT_MAX) return go(static_cast<int>(n));
  return go(static_cast<std::int64_t>(n));
}

}  // namespace ufunc::detail
