// One reduction as the engines receive it: the element source, the geometry,
// the op on accumulators, the starting value and the finishing step.
#pragma once

#include <cstddef>

#include "reduce_geometry.hpp"
#include "reduce_source.hpp"

namespace ufunc::detail {

/// A reduction of `g.K` outputs of `g.R` elements each read from `src`. With
/// HasInit, `init` is combined once with each result (NumPy's `initial`); `fin`
/// turns an accumulator into the result (a mean divides, argmin takes the index).
template <bool HasInit, class Src, class Acc, class Op, class Fin, std::size_t NIN>
struct reduce_job {
  static constexpr bool has_init = HasInit;
  const Src& src;
  const reduce_geometry<NIN>& g;
  acc_op<Acc, Op> op;
  Acc init;
  Fin fin;
  /// What the engines apply to each output's accumulated value.
  reduce_tail<Acc, Op, Fin> tail() const { return {op, fin, init, HasInit}; }
};

}  // namespace ufunc::detail
