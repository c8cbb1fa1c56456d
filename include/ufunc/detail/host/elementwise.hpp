// Host backend of the elementwise engine: the same element evaluation as the CUDA
// kernels, run over chunks of the result on the OpenMP threads.
#pragma once

#include <algorithm>
#include <array>

#include "../../stream.hpp"
#include "../layout.hpp"
#include "../operand.hpp"
#include "parallel.hpp"
#include "simd.hpp"

namespace ufunc::detail::host {

/// Elements per OpenMP work item: large enough to amortise scheduling, small
/// enough to balance load across cores.
inline constexpr index_t chunk = index_t(1) << 14;

template <class Body>
void parallel_chunks(index_t n, const Body& body) {
  parallel_n((n + chunk - 1) / chunk, body);
}

/// Elements of a flat call's computed inputs (lazy random leaves) made at once,
/// into a thread's buffer, before the function runs over them: whole Philox
/// blocks (a block per four floats, as the fills make them) rather than one
/// block per element, and the loop over the tile then reads memory as for
/// array inputs (and vectorises as it does).
inline constexpr index_t computed_tile = 256;
template <class Op, bool = is_computed_v<Op>>
struct flat_tile {  // an input in memory or a scalar: itself, moved to the tile
  Op at(const Op& op, index_t i0, index_t) { return op.rebased(i0); }
};
template <class Op>
struct flat_tile<Op, true> {
  using T = typename Op::value_type;
  static constexpr int group = 64;
  T v[computed_tile];
  in_ptr<T> at(const Op& op, index_t i0, index_t len) {
    if (len == computed_tile) {
      for (index_t k = 0; k < computed_tile; k += group) op.template load_into<group>(i0 + k, v + k);
    } else {
      for (index_t k = 0; k < len; ++k) v[k] = op.load(i0 + k);
    }
    return {v};
  }
};
template <class Ins>
struct flat_tiles;
template <class... Ops>
struct flat_tiles<cuda::std::tuple<Ops...>> {
  static constexpr bool any = (is_computed_v<Ops> || ...);
  cuda::std::tuple<flat_tile<Ops>...> t;
  template <std::size_t... I>
  auto at(const cuda::std::tuple<Ops...>& ins, index_t i0, index_t len, std::index_sequence<I...>) {
    return cuda::std::make_tuple(cuda::std::get<I>(t).at(cuda::std::get<I>(ins), i0, len)...);
  }
};

/// out_j[i] = f(ins[i]...)_j for contiguous operands.
template <class R, class F, class Outs, class Ins>
void flat(const F& f, const Outs& outs, const Ins& ins, index_t n) {
  using seq_in = std::make_index_sequence<cuda::std::tuple_size<Ins>::value>;
  using seq_out = std::make_index_sequence<result_traits<R>::nout>;
  if constexpr (flat_tiles<Ins>::any) {
    parallel_chunks(n, [&](index_t c) {
      const index_t end = std::min(n, (c + 1) * chunk);
      flat_tiles<Ins> tiles;
      for (index_t i0 = c * chunk; i0 < end; i0 += computed_tile) {
        const index_t len = std::min(computed_tile, end - i0);
        const auto tin = tiles.at(ins, i0, len, seq_in{});
        simd_run([&]() UFUNC_HOST_INLINE {
          for (index_t j = 0; j < len; ++j) store_result(outs, i0 + j, eval_flat(f, tin, j, seq_in{}), seq_out{});
        });
      }
    });
    return;
  }
  parallel_chunks(n, [&](index_t c) {
    const index_t end = std::min(n, (c + 1) * chunk);
    simd_run([&]() UFUNC_HOST_INLINE {
      for (index_t i = c * chunk; i < end; ++i) store_result(outs, i, eval_flat(f, ins, i, seq_in{}), seq_out{});
    });
  });
}

/// The general path: walks each chunk row by row along the innermost merged dim.
template <class R, int NOPS, class F, class Outs, class Ins>
void nd(const F& f, const Outs& outs, const Ins& ins, const merged_layout<NOPS>& m, index_t n) {
  constexpr int NOUT = result_traits<R>::nout;
  using seq_in = std::make_index_sequence<cuda::std::tuple_size<Ins>::value>;
  using seq_out = std::make_index_sequence<NOUT>;
  const int last = m.ndim - 1;
  parallel_chunks(n, [&](index_t c) {
    index_t i = c * chunk;
    const index_t end = std::min(n, i + chunk);
    index_t coord[max_rank] = {};
    index_t off[NOPS] = {};
    for (index_t rem = i, d = last; d >= 0; --d) {
      coord[d] = rem % m.dims[static_cast<std::size_t>(d)];
      rem /= m.dims[static_cast<std::size_t>(d)];
      for (int k = 0; k < NOPS; ++k) off[k] += coord[d] * m.strides[static_cast<std::size_t>(k)][static_cast<std::size_t>(d)];
    }
    while (i < end) {
      const index_t run = std::min(m.dims[static_cast<std::size_t>(last)] - coord[last], end - i);
      index_t o[NOPS];
      for (index_t j = 0; j < run; ++j) {
        for (int k = 0; k < NOPS; ++k) o[k] = off[k] + j * m.strides[static_cast<std::size_t>(k)][static_cast<std::size_t>(last)];
        store_result_at(outs, o, eval_at(f, ins, o + NOUT, seq_in{}), seq_out{});
      }
      i += run;
      // Advance the multi-index by `run` (to the start of the next row).
      coord[last] += run;
      for (int k = 0; k < NOPS; ++k) off[k] += run * m.strides[static_cast<std::size_t>(k)][static_cast<std::size_t>(last)];
      for (int d = last; d > 0 && coord[d] == m.dims[static_cast<std::size_t>(d)]; --d) {
        coord[d] = 0;
        ++coord[d - 1];
        for (int k = 0; k < NOPS; ++k)
          off[k] += m.strides[static_cast<std::size_t>(k)][static_cast<std::size_t>(d - 1)] -
                    m.dims[static_cast<std::size_t>(d)] * m.strides[static_cast<std::size_t>(k)][static_cast<std::size_t>(d)];
      }
    }
  });
}

}  // namespace ufunc::detail::host

namespace ufunc::detail {

template <class Target>
struct elementwise_backend;

template <>
struct elementwise_backend<target::host> {
  template <class R, int NOPS, class F, class Outs, class Ins>
  static void run(const F& f, const Outs& outs, const Ins& ins, const std::array<operand_layout, NOPS>&,
                  const merged_layout<NOPS>& m, bool is_flat, index_t n, stream_ref) {
    if (is_flat)
      host::flat<R>(f, outs, ins, n);
    else
      host::nd<R>(f, outs, ins, m, n);
  }
  /// The flat path alone: every operand contiguous and row-major over n elements.
  template <class R, int NOPS, bool Aligned = false, class F, class Outs, class Ins>
  static void run_flat(const F& f, const Outs& outs, const Ins& ins, const std::array<operand_layout, NOPS>&, index_t n,
                       stream_ref) {
    host::flat<R>(f, outs, ins, n);
  }
};

}  // namespace ufunc::detail
