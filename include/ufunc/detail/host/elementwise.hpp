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

/// out_j[i] = f(ins[i]...)_j for contiguous operands.
template <class R, class F, class Outs, class Ins>
void flat(const F& f, const Outs& outs, const Ins& ins, index_t n) {
  using seq_in = std::make_index_sequence<cuda::std::tuple_size<Ins>::value>;
  using seq_out = std::make_index_sequence<result_traits<R>::nout>;
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
};

}  // namespace ufunc::detail
