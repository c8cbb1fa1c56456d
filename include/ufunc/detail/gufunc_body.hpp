// The device side of gufunc.hpp: what a loop element's call is given (each
// operand's core view, moved along the loop) and the loop body parallel_for runs.
#pragma once

#include <cstddef>
#include <utility>

#include <cuda/std/tuple>

#include "../array_view.hpp"
#include "../config.hpp"
#include "element.hpp"  // UFUNC_EXEC_CHECK_DISABLE

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
  F f;
  int rank;
  index_t loop[max_rank];
  Args args;  // cuda::std::tuple of gufunc_arg
  UFUNC_EXEC_CHECK_DISABLE
  UFUNC_HD void operator()(std::size_t e) const { call(e, std::make_index_sequence<cuda::std::tuple_size<Args>::value>{}); }

 private:
  UFUNC_EXEC_CHECK_DISABLE
  template <std::size_t... K>
  UFUNC_HD void call(std::size_t e, std::index_sequence<K...>) const {
    index_t off[sizeof...(K)] = {};
    auto rem = static_cast<index_t>(e);
    for (int d = rank - 1; d >= 0; --d) {
      const index_t i = rem % loop[d];
      rem /= loop[d];
      ((off[K] += i * cuda::std::get<K>(args).loop_strides[d]), ...);
    }
    f(cuda::std::get<K>(args).core.shifted(off[K])...);
  }
};
}  // namespace detail
}  // namespace ufunc
