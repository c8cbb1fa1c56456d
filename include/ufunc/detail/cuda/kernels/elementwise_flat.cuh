// Flat elementwise kernel: every array operand is contiguous with the result, so
// element i of each lives at p[i]. Each thread moves V elements per operand with
// one vector access (16 bytes for the widest type) and keeps U such groups in
// flight before computing, to cover DRAM latency. Broadcast values stay scalars
// (no per-lane copies), which keeps registers low and occupancy high.
#pragma once

#include "../../operand.hpp"

namespace ufunc::detail {

/// Tuning for the flat path, from bench/tune_elementwise on an H200 (bench/NOTES.md).
struct flat_tuning {
  static constexpr int block = 256;
  static constexpr int unroll = 4;  // vector groups in flight per thread
};

/// What a thread holds of one operand for one group: V lanes of an array, or
/// nothing for a broadcast value (read from the operand itself).
template <class Op, int V, bool = Op::is_array>
struct group_regs {
  vec_reg<typename Op::value_type, V> r;
  __device__ __forceinline__ void load(const Op& op, index_t i) {
    using R = vec_reg<typename Op::value_type, V>;
    if constexpr (is_computed_v<Op>) {
      r = op.template load_vec<V>(i);  // made, not read (one Philox block per four floats)
    } else if constexpr (sizeof(R) == 16 && alignof(R) == 16) {
      // Read-only path. The `.L2::256B` prefetch hint it had (more DRAM requests
      // in flight per instruction, adopted on an H100) cost an H200 about 1 %:
      // bf16 gaussian_pdf / device copy 0.965 with it, 0.971 without (float
      // 0.974 / 0.978; bench/NOTES.md, session 25).
      uint4 u;
      asm volatile("ld.global.nc.v4.u32 {%0,%1,%2,%3}, [%4];"
                   : "=r"(u.x), "=r"(u.y), "=r"(u.z), "=r"(u.w)
                   : "l"(op.p + i));
      memcpy(&r, &u, 16);
    } else {
      r = *reinterpret_cast<const R*>(op.p + i);
    }
  }
  __device__ __forceinline__ typename Op::value_type lane(const Op&, int k) const { return r.v[k]; }
};
template <class Op, int V>
struct group_regs<Op, V, false> {
  __device__ __forceinline__ void load(const Op&, index_t) {}
  __device__ __forceinline__ typename Op::value_type lane(const Op& op, int) const { return op.v; }
};

/// Stores lane values of output J as one vector.
template <int V, int J, class R, class Outs>
__device__ __forceinline__ void store_group(const Outs& outs, index_t i, const R (&res)[V]) {
  using O = cuda::std::remove_pointer_t<cuda::std::tuple_element_t<J, Outs>>;
  vec_reg<O, V> w;
#pragma unroll
  for (int k = 0; k < V; ++k) w.v[k] = convert<O>(result_traits<R>::template get<J>(res[k]));
  *reinterpret_cast<vec_reg<O, V>*>(cuda::std::get<J>(outs) + i) = w;
}

template <int V, class R, class Outs, std::size_t... J>
__device__ __forceinline__ void store_groups(const Outs& outs, index_t i, const R (&res)[V], std::index_sequence<J...>) {
  (store_group<V, static_cast<int>(J)>(outs, i, res), ...);
}

template <int V, class Ops, class Regs, std::size_t... I>
__device__ __forceinline__ void load_groups(Regs& regs, const Ops& ins, index_t i, std::index_sequence<I...>) {
  (cuda::std::get<I>(regs).load(cuda::std::get<I>(ins), i), ...);
}

template <class F, class Regs, class Ops, std::size_t... I>
__device__ __forceinline__ decltype(auto) call_lane(const F& f, const Regs& regs, const Ops& ins, int k,
                                                    std::index_sequence<I...>) {
  return f(cuda::std::get<I>(regs).lane(cuda::std::get<I>(ins), k)...);
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
    cuda::std::tuple<group_regs<Ops, V>...> regs[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {  // all loads first: U * (array inputs) requests in flight
      const index_t g = g0 + static_cast<index_t>(u) * blockDim.x;
      if (g < ngroups) load_groups<V>(regs[u], ins, g * V, seq_in{});
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const index_t g = g0 + static_cast<index_t>(u) * blockDim.x;
      if (g < ngroups) {
        R res[V];
#pragma unroll
        for (int k = 0; k < V; ++k) res[k] = call_lane(f, regs[u], ins, k, seq_in{});
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
