// The device side of gufunc.hpp: what a loop element's call is given (each
// operand's core view, moved along the loop) and the loop body parallel_for runs.
#pragma once

#include <cstddef>
#include <utility>

#include <cuda/std/tuple>

#include "../array_view.hpp"
#include "../config.hpp"
#include "element.hpp"  // UFUNC_EXEC_CHECK_DISABLE

#include UFUNC_CUDA_BACKEND("cuda/gufunc.hpp")

namespace ufunc {
namespace detail {
/// One operand as the kernel sees it: a view of its first core block (the
/// operand's base, the core's extents and strides; a 0-d view for a core of
/// no dims), moved per loop element by the loop strides.
template <class T, class Target>
struct gufunc_arg {
  array_view<T, Target> core;
  index_t loop_strides[max_rank];
};
/// The loop over the call's loop elements: element e (row-major over `loop`)
/// calls f with every operand's core view moved to e.
template <class Target, class F, class Args>
struct gufunc_body {
  static constexpr std::size_t nops = cuda::std::tuple_size<Args>::value;
  F f;
  int rank;
  index_t loop[max_rank];
  Args args;  // cuda::std::tuple of gufunc_arg
  UFUNC_EXEC_CHECK_DISABLE
  UFUNC_HD void operator()(std::size_t e) const {
    index_t off[nops] = {};
    offsets(e, off);
    call(off, std::make_index_sequence<nops>{});
  }
  /// off[k] += operand k's offset (elements) of loop element e from its first block.
  UFUNC_HD void offsets(std::size_t e, index_t (&off)[nops]) const { add_offsets(e, off, std::make_index_sequence<nops>{}); }

 private:
  template <std::size_t... K>
  UFUNC_HD void add_offsets(std::size_t e, index_t (&off)[nops], std::index_sequence<K...>) const {
    auto rem = static_cast<index_t>(e);
    for (int d = rank - 1; d >= 0; --d) {
      const index_t i = rem % loop[d];
      rem /= loop[d];
      ((off[K] += i * cuda::std::get<K>(args).loop_strides[d]), ...);
    }
  }
  UFUNC_EXEC_CHECK_DISABLE
  template <std::size_t... K>
  UFUNC_HD void call(const index_t (&off)[nops], std::index_sequence<K...>) const {
    f(cuda::std::get<K>(args).core.shifted(off[K])...);
  }
};

/// Runs a gufunc_body over n loop elements on Target (host: parallel_for's
/// loop; CUDA: cuda/gufunc.hpp, inputs staged through shared memory).
template <class Target>
struct gufunc_backend;
}  // namespace detail
}  // namespace ufunc
