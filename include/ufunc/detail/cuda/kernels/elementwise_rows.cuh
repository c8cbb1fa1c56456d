// Row-tiled N-d elementwise kernel, for broadcast or strided operands whose
// innermost merged dimension is long. A block takes a tile of one row: each
// operand's pointer moves to the row's start once per tile (uniform across the
// block); each thread then handles G groups of V consecutive columns. Per
// operand the walk along the row is one of three modes, fixed per launch:
// contiguous (one vector access per group), broadcast (one scalar load per
// group) or strided (V scalar accesses). Most broadcasts are the first two, so
// a group of V results costs about one instruction per operand.
#pragma once

#include "../../operand.hpp"

namespace ufunc::detail {

/// Tuning for the row path, from bench/tune_elementwise on an H200 (bench/NOTES.md).
struct rows_tuning {
  static constexpr int block = 256;
  static constexpr int groups = 2;  // V-wide column groups per thread per tile
  /// Below this inner length a row tile would leave most threads idle; the
  /// per-element N-d kernel is used instead.
  static constexpr index_t min_inner = 512;
};

/// How an operand walks along the row.
enum class walk : unsigned char { strided = 0, contiguous = 1, broadcast = 2 };

template <int NOPS>
struct walk_modes {
  walk m[NOPS > 0 ? NOPS : 1];
};

template <int V, class T, class O>
__device__ __forceinline__ vec_reg<T, V> load_walk(const T* p, O j, O step, walk mode) {
  vec_reg<T, V> r;
  if (mode == walk::contiguous) {
    r = *reinterpret_cast<const vec_reg<T, V>*>(p + j);
  } else if (mode == walk::broadcast) {
    const T v = *p;
#pragma unroll
    for (int l = 0; l < V; ++l) r.v[l] = v;
  } else {
#pragma unroll
    for (int l = 0; l < V; ++l) r.v[l] = p[(j + l) * step];
  }
  return r;
}

/// load_walk for a computed operand (operand.hpp): the same walks, its values made.
template <int V, class Op, class O>
__device__ __forceinline__ vec_reg<typename Op::value_type, V> make_walk(const Op& op, O j, O step, walk mode) {
  vec_reg<typename Op::value_type, V> r;
  if (mode == walk::contiguous) {
    r = op.template load_vec<V>(j);
  } else if (mode == walk::broadcast) {
    const auto v = op.load(O(0));
#pragma unroll
    for (int l = 0; l < V; ++l) r.v[l] = v;
  } else {
#pragma unroll
    for (int l = 0; l < V; ++l) r.v[l] = op.load((j + l) * step);
  }
  return r;
}

template <int V, class Op, class O>
struct walk_regs {  // an array operand: V lanes
  vec_reg<typename Op::value_type, V> r;
  __device__ __forceinline__ void load(const Op& op, O j, O step, walk mode) {
    if constexpr (is_computed_v<Op>)
      r = make_walk<V>(op, j, step, mode);
    else
      r = load_walk<V>(op.p, j, step, mode);
  }
  __device__ __forceinline__ typename Op::value_type lane(const Op&, int l) const { return r.v[l]; }
};
template <int V, class T, class O>
struct walk_regs<V, in_value<T>, O> {  // a broadcast value: nothing to load
  __device__ __forceinline__ void load(const in_value<T>&, O, O, walk) {}
  __device__ __forceinline__ T lane(const in_value<T>& op, int) const { return op.v; }
};

template <class Outs, std::size_t... J, class O>
__device__ __forceinline__ Outs rebase_outs(const Outs& outs, const O* base, std::index_sequence<J...>) {
  return Outs{(cuda::std::get<J>(outs) + base[J])...};
}
template <class Ins, std::size_t... I, class O>
__device__ __forceinline__ Ins rebase_ins(const Ins& ins, const O* base, std::index_sequence<I...>) {
  return Ins{cuda::std::get<I>(ins).rebased(base[I])...};
}

template <int V, int NOUT, class Regs, class Ins, class O, int NOPS, std::size_t... I>
__device__ __forceinline__ void load_walks(Regs& regs, const Ins& ins, O j, const O* step, const walk_modes<NOPS>& modes,
                                           std::index_sequence<I...>) {
  (cuda::std::get<I>(regs).load(cuda::std::get<I>(ins), j, step[NOUT + I], modes.m[NOUT + I]), ...);
}
template <class F, class Regs, class Ins, std::size_t... I>
__device__ __forceinline__ decltype(auto) call_walk_lane(const F& f, const Regs& regs, const Ins& ins, int l,
                                                         std::index_sequence<I...>) {
  return f(cuda::std::get<I>(regs).lane(cuda::std::get<I>(ins), l)...);
}

template <int V, class R, class Outs, class O, int NOPS, std::size_t... J>
__device__ __forceinline__ void store_walks(const Outs& outs, O j, const O* step, const walk_modes<NOPS>& modes,
                                            const R (&res)[V], std::index_sequence<J...>) {
  (
      [&] {
        using T = cuda::std::remove_pointer_t<cuda::std::tuple_element_t<J, Outs>>;
        T* p = cuda::std::get<J>(outs);
        if (modes.m[J] == walk::contiguous) {
          vec_reg<T, V> w;
#pragma unroll
          for (int l = 0; l < V; ++l) w.v[l] = convert<T>(result_traits<R>::template get<static_cast<int>(J)>(res[l]));
          *reinterpret_cast<vec_reg<T, V>*>(p + j) = w;
        } else {
#pragma unroll
          for (int l = 0; l < V; ++l)
            p[(j + l) * step[J]] = convert<T>(result_traits<R>::template get<static_cast<int>(J)>(res[l]));
        }
      }(),
      ...);
}

/// A thread's G slots of V columns in a row tile, from column c0 (slot g starts
/// a block's width of vectors after slot g - 1): whole(g, j) for a slot inside
/// the row, lane(g, l, j + l) for each column of a slot the row's end cuts.
template <int V, int G, class off_t, class Whole, class Lane>
__device__ __forceinline__ void row_slots(off_t c0, off_t inner, const Whole& whole, const Lane& lane) {
#pragma unroll
  for (int g = 0; g < G; ++g) {
    const off_t j = c0 + off_t(g) * rows_tuning::block * V;
    if (j + V <= inner) {
      whole(g, j);
    } else {
#pragma unroll
      for (int l = 0; l < V; ++l)
        if (j + l < inner) lane(g, l, j + l);
    }
  }
}

template <int V, int G, class Idx, class R, int NOPS, class F, class Outs, class... Ops>
__global__ void __launch_bounds__(rows_tuning::block)
    elementwise_rows_kernel(F f, Outs outs, cuda::std::tuple<Ops...> ins, nd_plan<NOPS, Idx> plan,
                            walk_modes<NOPS> modes, divider<Idx> tiles_per_row, Idx ntiles) {
  using off_t = typename nd_plan<NOPS, Idx>::off_type;
  using Ins = cuda::std::tuple<Ops...>;
  constexpr int NOUT = result_traits<R>::nout;
  constexpr off_t TILE = off_t(rows_tuning::block) * V * G;
  using seq_in = std::index_sequence_for<Ops...>;
  using seq_out = std::make_index_sequence<NOUT>;
  const int last = plan.ndim - 1;
  const off_t inner = static_cast<off_t>(plan.dims[last]);
  off_t step[NOPS];
#pragma unroll
  for (int k = 0; k < NOPS; ++k) step[k] = plan.strides[k][last];
  for (Idx t = blockIdx.x; t < ntiles; t += gridDim.x) {
    const Idx r = tiles_per_row.div(t);
    const off_t c0 = static_cast<off_t>(t - r * tiles_per_row.d) * TILE + static_cast<off_t>(threadIdx.x) * V;
    off_t base[NOPS];
    plan.offsets(r, base, last);  // offsets of row r over the outer dims
    const Outs o = rebase_outs(outs, base, seq_out{});
    const Ins in = rebase_ins(ins, base + NOUT, seq_in{});
    // All loads and evaluations before any store: stores may alias the inputs
    // (in-place use), so loads after a store could not be hoisted.
    R res[G][V];
    row_slots<V, G>(
        c0, inner,
        [&](int g, off_t j) {
          cuda::std::tuple<walk_regs<V, Ops, off_t>...> regs;
          load_walks<V, NOUT>(regs, in, j, step, modes, seq_in{});
#pragma unroll
          for (int l = 0; l < V; ++l) res[g][l] = call_walk_lane(f, regs, in, l, seq_in{});
        },
        [&](int g, int l, off_t jl) {
          off_t off[NOPS];
#pragma unroll
          for (int k = NOUT; k < NOPS; ++k) off[k] = jl * step[k];
          res[g][l] = eval_at(f, in, off + NOUT, seq_in{});
        });
    row_slots<V, G>(
        c0, inner, [&](int g, off_t j) { store_walks<V>(o, j, step, modes, res[g], seq_out{}); },
        [&](int g, int l, off_t jl) {
          off_t off[NOUT];
#pragma unroll
          for (int k = 0; k < NOUT; ++k) off[k] = jl * step[k];
          store_result_at(o, off, res[g][l], seq_out{});
        });
  }
}

}  // namespace ufunc::detail
