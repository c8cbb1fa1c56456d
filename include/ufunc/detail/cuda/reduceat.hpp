// CUDA backend of reduceat (the ufunc method): CUB's segmented reduction, one
// segment per output, its begin and end offsets computed from the indices on
// the fly; the index check is one CUB reduction (the first bad position).
#pragma once

#include <cstdint>
#include <type_traits>

#include "../../error.hpp"
#include "../../stream.hpp"
#include "../op_traits.hpp"
#include "../reduce_source.hpp"
#include "launch.hpp"
#include "memory.hpp"
#include "scratch.hpp"

#if defined(__CUDACC__)
#  include "wide_sum.hpp"
#  include <cub/device/device_reduce.cuh>
#  include <cub/device/device_segmented_reduce.cuh>
#  include <cuda/functional>
#  include <thrust/iterator/counting_iterator.h>
#  include <thrust/iterator/tabulate_output_iterator.h>
#  include <thrust/iterator/transform_iterator.h>
#endif

namespace ufunc::detail {

#if defined(__CUDACC__)
/// Position k when index k lies outside [0, n), else m (the minimum over k is
/// the first bad position).
template <class Ix>
struct reduceat_bad_at {
  const Ix* idx;
  index_t step, m, n;
  __host__ __device__ index_t operator()(index_t k) const {
    const Ix v = idx[k * step];
    bool bad = static_cast<std::uint64_t>(v) >= static_cast<std::uint64_t>(n);
    if constexpr (std::is_signed_v<Ix>) bad = bad || v < 0;
    return bad ? k : m;
  }
};
/// Segment s's first (End: one past its last) element in the segment-major
/// order of the input iterator: element r of kept row k is k n + r.
template <class G, bool End>
struct reduceat_offset {
  G g;
  __host__ __device__ index_t operator()(index_t s) const {
    const index_t k = s / g.m, i = s - k * g.m;
    return k * g.n + (End ? g.end(i) : g.begin(i));
  }
};
/// Element j = k n + r of the segment-major order: x's element r of kept row k.
template <class Acc, class G>
struct reduceat_value {
  G g;
  __host__ __device__ Acc operator()(index_t j) const {
    const index_t k = j / g.n, r = j - k * g.n;
    index_t off[2];
    g.row(k, off);
    return static_cast<Acc>(g.x[off[0] + r * g.step_x]);
  }
};
/// Stores output s = k m + i (CUB's result for segment s, or the value a
/// `maybe` holds) at its place in the result: s itself for `Rows`, else row
/// k's offset plus i steps along the axis.
template <class Acc, class G, bool Rows>
struct reduceat_store {
  Acc* out;
  G g;
  __host__ __device__ index_t where(index_t s) const {
    if (Rows) return s;
    const index_t k = s / g.m, i = s - k * g.m;
    index_t off[2];
    g.row(k, off);
    return off[1] + i * g.step_out;
  }
  __host__ __device__ void operator()(index_t s, const Acc& v) const { out[where(s)] = v; }
  __host__ __device__ void operator()(index_t s, const maybe<Acc>& v) const { out[where(s)] = v.v; }
};
/// A widened sum's result (wide_sum: float in double, double in a compensated
/// pair) narrowed once and stored as reduceat_store does.
template <class Acc, class WS, class G, bool Rows>
struct reduceat_store_wide {
  reduceat_store<Acc, G, Rows> st;
  __host__ __device__ void operator()(index_t s, const typename WS::type& v) const { st(s, WS::narrow(v)); }
};
template <class WS>
struct reduceat_widen {
  template <class T>
  __host__ __device__ typename WS::type operator()(const T& v) const { return WS::widen(v); }
};
template <class Acc>
struct reduceat_cast {
  template <class T>
  __host__ __device__ Acc operator()(const T& v) const { return static_cast<Acc>(v); }
};
/// An op without identity: CUB reduces `maybe` values from an empty start
/// (every segment has an element, so every result is set).
template <class Acc>
struct reduceat_wrap {
  __host__ __device__ maybe<Acc> operator()(const Acc& v) const { return {v, true}; }
};
#endif

template <class Target>
struct reduceat_backend;

template <>
struct reduceat_backend<target::cuda> {
  /// As reduceat_backend<host>::first_bad (waits for the stream: the answer is read on the host).
  template <class Ix>
  static index_t first_bad(const Ix* idx, index_t step, index_t m, index_t n, stream_ref s) {
#if defined(__CUDACC__)
    if (m == 0) return 0;
    auto in = thrust::make_transform_iterator(thrust::counting_iterator<index_t>(0), reduceat_bad_at<Ix>{idx, step, m, n});
    std::size_t bytes = 0;
    UFUNC_CUDA_CHECK(cub::DeviceReduce::Reduce(nullptr, bytes, in, static_cast<index_t*>(nullptr), m,
                                               cuda::minimum<>{}, m, s.get()));
    device_temp t(result_slot + bytes, s);
    auto* res = static_cast<index_t*>(t.get());
    UFUNC_CUDA_CHECK(cub::DeviceReduce::Reduce(static_cast<char*>(t.get()) + result_slot, bytes, in, res, m,
                                               cuda::minimum<>{}, m, s.get()));
    index_t bad = m;
    memory<target::cuda>::copy_to_host(&bad, res, sizeof bad, s);
    return bad;
#else
    (void)idx, (void)step, (void)m, (void)n, (void)s;
    cuda_launch::require_nvcc<Ix>();
    return 0;
#endif
  }

  /// As reduceat_backend<host>::run (G is a reduceat_geometry): K m segments
  /// of CUB's DeviceSegmentedReduce, starting from the op's identity where it
  /// has one, else from an empty `maybe`. Float and double sums (and complex64)
  /// are carried wide (wide_sum.hpp: float in double, double in a compensated
  /// pair) and narrowed once, as the other GPU sums: each thread's serial part
  /// then costs no float rounding.
  /// `rows`: plain pointers in and out (CUB's vector loads).
  template <class Acc, class Op, class G>
  static void run(const acc_op<Acc, Op>& op, const G& g, index_t K, bool rows, Acc* out, stream_ref s) {
#if defined(__CUDACC__)
    using T = std::remove_const_t<std::remove_pointer_t<decltype(g.x)>>;
    const index_t segs = K * g.m;
    auto begins = thrust::make_transform_iterator(thrust::counting_iterator<index_t>(0), reduceat_offset<G, false>{g});
    auto ends = thrust::make_transform_iterator(thrust::counting_iterator<index_t>(0), reduceat_offset<G, true>{g});
    // An op without identity reduces `maybe` values from an empty start; the
    // output is then a tabulate iterator (its value type void, so CUB takes
    // the `maybe` as its accumulator, not the result's element type).
    auto call = [&](auto in, auto dst) {
      auto go = [&](void* temp, std::size_t& bytes) {
        if constexpr (wide_sum<Acc, Op>::value) {  // carried wide, narrowed once (as the other sums)
          using WS = wide_sum<Acc, Op>;
          using W = typename WS::type;
          auto win = thrust::make_transform_iterator(in, reduceat_widen<WS>{});
          return cub::DeviceSegmentedReduce::Reduce(temp, bytes, win, dst, segs, begins, ends, typename WS::op{},
                                                    WS::op::template identity<W>(), s.get());
        } else if constexpr (has_identity<Op, Acc>::value) {
          return cub::DeviceSegmentedReduce::Reduce(temp, bytes, in, dst, segs, begins, ends, op,
                                                    Op::template identity<Acc>(), s.get());
        } else {
          auto win = thrust::make_transform_iterator(in, reduceat_wrap<Acc>{});
          return cub::DeviceSegmentedReduce::Reduce(temp, bytes, win, dst, segs, begins, ends, maybe_op<Acc, Op>{op},
                                                    maybe<Acc>{Acc{}, false}, s.get());
        }
      };
      std::size_t bytes = 0;
      UFUNC_CUDA_CHECK(go(nullptr, bytes));
      device_temp t(bytes, s);
      UFUNC_CUDA_CHECK(go(t.get(), bytes));
    };
    if (rows) {
      auto in = [&] {
        if constexpr (std::is_same_v<T, Acc>)
          return g.x;
        else
          return thrust::make_transform_iterator(g.x, reduceat_cast<Acc>{});
      }();
      if constexpr (wide_sum<Acc, Op>::value)
        call(in, thrust::make_tabulate_output_iterator(
                     reduceat_store_wide<Acc, wide_sum<Acc, Op>, G, true>{reduceat_store<Acc, G, true>{out, g}}));
      else if constexpr (has_identity<Op, Acc>::value)
        call(in, out);  // a plain pointer: CUB's vector stores
      else
        call(in, thrust::make_tabulate_output_iterator(reduceat_store<Acc, G, true>{out, g}));
    } else {
      auto in = thrust::make_transform_iterator(thrust::counting_iterator<index_t>(0), reduceat_value<Acc, G>{g});
      if constexpr (wide_sum<Acc, Op>::value)
        call(in, thrust::make_tabulate_output_iterator(
                     reduceat_store_wide<Acc, wide_sum<Acc, Op>, G, false>{reduceat_store<Acc, G, false>{out, g}}));
      else
        call(in, thrust::make_tabulate_output_iterator(reduceat_store<Acc, G, false>{out, g}));
    }
#else
    (void)op, (void)g, (void)K, (void)rows, (void)out, (void)s;
    cuda_launch::require_nvcc<G>();
#endif
  }
};

}  // namespace ufunc::detail
