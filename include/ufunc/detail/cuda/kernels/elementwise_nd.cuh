// General N-d elementwise kernel for broadcast or strided operands. Each thread
// takes E consecutive result elements: it decomposes the first linear index
// once (fast division by each merged dim), then steps along the innermost dim by
// adding strides, recomputing only when it crosses into the next row.
#pragma once

#include "../../operand.hpp"

namespace ufunc::detail {

/// Tuning for the N-d path.
struct nd_tuning {
  static constexpr int block = 256;
};

template <int E, class R, class Outs, std::size_t... J>
__device__ __forceinline__ void store_vec(const Outs& outs, index_t i, const R (&res)[E], std::index_sequence<J...>) {
  (
      [&] {
        using O = cuda::std::remove_pointer_t<cuda::std::tuple_element_t<J, Outs>>;
        vec_reg<O, E> w;
#pragma unroll
        for (int e = 0; e < E; ++e) w.v[e] = convert<O>(result_traits<R>::template get<static_cast<int>(J)>(res[e]));
        *reinterpret_cast<vec_reg<O, E>*>(cuda::std::get<J>(outs) + i) = w;
      }(),
      ...);
}

/// NOUT outputs then the inputs share the plan's stride table. When the first
/// output is contiguous (`out_flat`, a fresh result or a contiguous `out`) and
/// aligned, results are written with one vector store per thread.
template <int E, class Idx, class R, class F, class Outs, class Ins, int NOPS>
__global__ void __launch_bounds__(nd_tuning::block)
    elementwise_nd_kernel(F f, Outs outs, Ins ins, nd_plan<NOPS, Idx> plan, index_t n, bool out_flat) {
  constexpr int NOUT = result_traits<R>::nout;
  constexpr int NIN = cuda::std::tuple_size<Ins>::value;
  using seq_in = std::make_index_sequence<NIN>;
  using seq_out = std::make_index_sequence<NOUT>;
  const index_t inner_dim = plan.dims[plan.ndim - 1];
  for (index_t base = (static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x) * E; base < n;
       base += static_cast<index_t>(gridDim.x) * blockDim.x * E) {
    using off_t = typename nd_plan<NOPS, Idx>::off_type;
    off_t off0[NOPS];
    const index_t inner = static_cast<index_t>(plan.offsets(static_cast<Idx>(base), off0));
    R res[E];
    off_t off[E][NOPS];
#pragma unroll
    for (int e = 0; e < E; ++e) {
      if (base + e < n) {
        if (inner + e < inner_dim) {  // same row: step along the innermost dim
#pragma unroll
          for (int k = 0; k < NOPS; ++k) off[e][k] = off0[k] + static_cast<off_t>(e) * plan.strides[k][plan.ndim - 1];
        } else {
          plan.offsets(static_cast<Idx>(base + e), off[e]);
        }
        res[e] = eval_at(f, ins, off[e] + NOUT, seq_in{});
      }
    }
    if (out_flat && base + E <= n) {
      store_vec(outs, base, res, seq_out{});
    } else {
#pragma unroll
      for (int e = 0; e < E; ++e)
        if (base + e < n) store_result_at(outs, off[e], res[e], seq_out{});
    }
  }
}

}  // namespace ufunc::detail
