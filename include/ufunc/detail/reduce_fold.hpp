// The element functions the streamed and sharded reductions fold partial
// results with (acc = op(acc, part), TwoSum's compensation, argmin/argmax's
// offset pick, a mean's finalisation).
#pragma once

#include "../config.hpp"

namespace ufunc::detail {

/// acc = op(acc, partial): the fold of a streamed reduction's partial results.
template <class Op>
struct fold_fn {
  Op op;
  template <class A>
  UFUNC_HD A operator()(const A& acc, const A& part) const noexcept(noexcept(op(acc, part))) { return op(acc, part); }
};
/// The rounding error of acc + part (TwoSum, exact), added to the compensation
/// c: a streamed sum's fold over chunks keeps it beside the running sum, so the
/// fold's error does not grow with the number of chunks.
struct two_sum_err_fn {
  template <class A>
  UFUNC_HD A operator()(const A& c, const A& acc, const A& part) const {
    const A s = acc + part;
    const A bb = s - acc;
    return c + ((acc - (s - bb)) + (part - bb));
  }
};
/// a + b: the compensation added to the folded sum, once at the end.
struct add_fn {
  template <class A>
  UFUNC_HD A operator()(const A& a, const A& b) const { return a + b; }
};
/// argmin/argmax's fold of a chunk's partials: the chunk's indices count from
/// its own first element, so `off` (the chunk's first position in the flattened
/// reduced index space) is added before the pick, which then compares global
/// indices exactly as the in-memory engine does (ties and NaNs alike).
template <class Op>
struct arg_fold_fn {
  Op op;
  index_t off;
  template <class A>
  UFUNC_HD A operator()(const A& acc, A part) const {
    part.i += off;
    return op(acc, part);
  }
};
/// argmin/argmax's partial with its indices moved by `off`: a shard's partial
/// (sharded/engine.hpp) counts from the shard's first element; moved to the
/// global flattened reduced index space, partials fold with arg_pick alone.
struct arg_shift_fn {
  index_t off;
  template <class A>
  UFUNC_HD A operator()(A a) const {
    a.i += off;
    return a;
  }
};
/// fin(acc): a streamed reduction's finalisation (mean's division), applied
/// once to the folded accumulators.
template <class Fin>
struct finish_fn {
  Fin fin;
  template <class A>
  UFUNC_HD auto operator()(const A& acc) const { return fin(acc); }
};

}  // namespace ufunc::detail
