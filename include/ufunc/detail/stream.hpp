// Streamed elementwise dispatch (issue 14): a call on a device target with some
// operand in host memory. The public layer has validated it (shapes, casts,
// overlap); here the host-only planner (stream_plan.hpp) cuts it into chunks
// under the device memory limit and the target's pipeline runs each chunk with
// the same elementwise engine an in-memory call uses (so results are bit for
// bit those of an in-memory run). Chosen only when an operand is host memory:
// device-resident calls never reach this header's code.
#pragma once

#include <array>
#include <cuda/std/tuple>
#include <functional>
#include <utility>
#include <vector>

#include "../config.hpp"
#include "../stream.hpp"
#include "elementwise.hpp"
#include "layout.hpp"
#include "memory.hpp"
#include "operand.hpp"
#include "stream_plan.hpp"

#include UFUNC_CUDA_BACKEND("cuda/stream_pipeline.hpp")

namespace ufunc::detail {

/// The planner's view of a layout, marked host-resident or not.
inline stream_operand stream_operand_of(const operand_layout& l, bool host) {
  stream_operand o;
  o.is_array = l.is_array;
  o.host = l.is_array && host;
  o.elem_size = l.elem_size;
  o.shp = l.shp;
  o.strides = l.strides;
  return o;
}

/// Input operand `op` for a chunk: its chunk data at `p`, or (computed: it has
/// no memory, and stays on the device) itself moved to the chunk's first
/// element, `begin` elements from its base (chunk_of's host_begin).
template <class Op>
auto rebind_operand(const Op& op, void* p, index_t begin) {
  if constexpr (is_computed_v<Op>)
    return op.rebased(begin);
  else if constexpr (Op::is_array)
    return Op{static_cast<const typename Op::value_type*>(p)};
  else
    return op;
}
template <class... Ops, std::size_t... I>
auto rebind_inputs(const cuda::std::tuple<Ops...>& ins, const std::vector<void*>& ptr,
                   const std::vector<index_t>& begin, std::size_t first, std::index_sequence<I...>) {
  return cuda::std::make_tuple(rebind_operand(cuda::std::get<I>(ins), ptr[first + I], begin[first + I])...);
}
template <class... O, std::size_t... J>
auto rebind_outputs(const cuda::std::tuple<O*...>&, const std::vector<void*>& ptr, std::index_sequence<J...>) {
  return cuda::std::make_tuple(static_cast<O*>(ptr[J])...);
}

/// Runs out_j = f(ins...)_j over `iter` on Target, streaming the operands whose
/// `host` flag is set (outputs first, then inputs, as in `layouts`). Returns when
/// host outputs hold their data. Throws out_of_memory (naming `name`) when one
/// row of chunk buffers exceeds the device memory limit, value_error for a
/// strided host operand. `late`: host outputs whose layout data is null get
/// their memory from it, before the pipeline first writes them (pageable
/// memory the call allocates itself only; never used on the host target).
template <class Target, class R, class F, class Outs, class Ins, std::size_t NOPS>
void run_streamed(const char* name, const F& f, const shape& iter, const Outs& outs, const Ins& ins,
                  const std::array<operand_layout, NOPS>& layouts, const std::array<bool, NOPS>& host, stream_ref s,
                  const late_host_outputs* late = nullptr) {
  if constexpr (std::is_same_v<Target, target::host>) {
    (void)name, (void)host, (void)late;
    run_elementwise<Target, R>(f, iter, outs, ins, layouts, s);  // host memory is the data: nothing streams
  } else {
    using pl = pipeline<Target>;
    constexpr std::size_t nout = static_cast<std::size_t>(result_traits<R>::nout);
    if (iter.count() == 0) return;
    std::vector<stream_operand> sop(NOPS);
    std::vector<typename pl::io> io(NOPS);
    std::vector<const void*> base(NOPS);
    for (std::size_t k = 0; k < NOPS; ++k) {
      sop[k] = stream_operand_of(layouts[k], host[k]);
      io[k].is_out = k < nout;
      io[k].elem = layouts[k].elem_size;
      if (io[k].is_out) io[k].host_out = const_cast<void*>(layouts[k].data);
      else io[k].host = layouts[k].data;
      base[k] = layouts[k].data;
    }
    const stream_plan p = plan_stream(name, iter, sop, nullptr, device_limit_now(), pl::buffers, pl::chunk_bytes(sop));
    pl::run(p, sop, io, base, s, [&](index_t c, const std::vector<void*>& ptr, stream_ref st) {
      const shape cs = p.chunk_shape(c);
      std::array<operand_layout, NOPS> cl = layouts;
      std::vector<index_t> begin(NOPS, 0);
      for (std::size_t k = 0; k < NOPS; ++k) {
        if (!cl[k].is_array) continue;
        const chunk_operand co = chunk_of(p, sop[k], k, c);
        if (!cl[k].computed) cl[k].data = ptr[k];  // (a computed one keeps its aligned origin)
        cl[k].shp = co.shp;
        cl[k].strides = co.strides;
        begin[k] = co.host_begin;
      }
      const auto o = rebind_outputs(outs, ptr, std::make_index_sequence<nout>{});
      const auto i = rebind_inputs(ins, ptr, begin, nout, std::make_index_sequence<NOPS - nout>{});
      run_elementwise<Target, R>(f, cs, o, i, cl, st);
    }, late);
  }
}

}  // namespace ufunc::detail
