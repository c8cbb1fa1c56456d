// Flat elementwise kernel: every array operand is contiguous with the result, so
// element i of each lives at p[i]. Each thread moves V elements per operand with
// one vector access (16 bytes for the widest type) and keeps U such groups in
// flight before computing, to cover DRAM latency.
#pragma once

#include "../operand.hpp"

namespace ufunc::detail {

/// Tuning for the flat path, chosen on an H100 (see bench/).
struct flat_tuning {
  static constexpr int block = 256;
  static constexpr int unroll = 2;  // vector groups in flight per thread
};

/// Loads V consecutive elements of an operand starting at element i (a multiple of V).
template <int V, class Op>
__device__ __forceinline__ vec_reg<typename Op::value_type, V> load_group(const Op& op, index_t i) {
  using T = typename Op::value_type;
  vec_reg<T, V> r;
  if constexpr (Op::is_array) {
    r = *reinterpret_cast<const vec_reg<T, V>*>(op.p + i);
  } else {
#pragma unroll
    for (int k = 0; k < V; ++k) r.v[k] = op.v;
  }
  return r;
}

template <class F, class Regs, std::size_t... I>
__device__ __forceinline__ decltype(auto) call_lane(const F& f, const Regs& regs, int k, std::index_sequence<I...>) {
  return f(cuda::std::get<I>(regs).v[k]...);
}

/// Stores lane values of output J as one vector.
template <int V, int J, class R, class Outs>
__device__ __forceinline__ void store_group(const Outs& outs, index_t i, const R (&res)[V]) {
  using O = cuda::std::remove_pointer_t<cuda::std::tuple_element_t<J, Outs>>;
  vec_reg<O, V> w;
#pragma unroll
  for (int k = 0; k < V; ++k) w.v[k] = static_cast<O>(result_traits<R>::template get<J>(res[k]));
  *reinterpret_cast<vec_reg<O, V>*>(cuda::std::get<J>(outs) + i) = w;
}

template <int V, class R, class Outs, std::size_t... J>
__device__ __forceinline__ void store_groups(const Outs& outs, index_t i, const R (&res)[V], std::index_sequence<J...>) {
  (store_group<V, static_cast<int>(J)>(outs, i, res), ...);
}

/// out_j[i] = f(in_0[i], ...)_j for i < n. Outs: tuple of output pointers; Ins:
/// tuple of in_ptr/in_value operands. Requires every pointer aligned to V elements.
template <int V, int U, class R, class F, class Outs, class... Ops>
__global__ void __launch_bounds__(flat_tuning::block)
    elementwise_flat_kernel(F f, Outs outs, cuda::std::tuple<Ops...> ins, index_t n) {
  using seq_in = std::index_sequence_for<Ops...>;
  using seq_out = std::make_index_sequence<result_traits<R>::nout>;
  const index_t ngroups = n / V;
  const index_t tile = static_cast<index_t>(blockDim.x) * U;
  for (index_t g0 = static_cast<index_t>(blockIdx.x) * tile + threadIdx.x; g0 < ngroups;
       g0 += static_cast<index_t>(gridDim.x) * tile) {
    cuda::std::tuple<vec_reg<typename Ops::value_type, V>...> regs[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {  // all loads first: U * (inputs) requests in flight
      const index_t g = g0 + static_cast<index_t>(u) * blockDim.x;
      if (g < ngroups)
        regs[u] = cuda::std::apply([&](const Ops&... op) { return cuda::std::make_tuple(load_group<V>(op, g * V)...); }, ins);
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const index_t g = g0 + static_cast<index_t>(u) * blockDim.x;
      if (g < ngroups) {
        R res[V];
#pragma unroll
        for (int k = 0; k < V; ++k) res[k] = call_lane(f, regs[u], k, seq_in{});
        store_groups<V>(outs, g * V, res, seq_out{});
      }
    }
  }
  // The last n % V elements, one per thread of the first block.
  if (blockIdx.x == 0) {
    const index_t i = ngroups * V + threadIdx.x;
    if (i < n) store_result(outs, i, eval_flat(f, ins, i, seq_in{}), seq_out{});
  }
}

}  // namespace ufunc::detail
