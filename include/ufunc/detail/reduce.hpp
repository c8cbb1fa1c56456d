// Reduction dispatch: the geometry of a call (reduce_geometry.hpp), the element
// sources (reduce_source.hpp) and the target's engine, reduce_backend<Target>:
// host/reduce.hpp (OpenMP) or cuda/reduce.hpp (CUB and the row/column kernels).
// A reduction calls reduce_backend<Target>::run (K outputs into memory) or
// ::to_host (one output returned as a value); a backend with `defers_values`
// also has ::enqueue_to_host (the value left in pinned memory, not waited for).
// Here: what each kind of reduction
// (plain, mean, argmin/argmax) accumulates and how it finishes.
#pragma once

#include <type_traits>

#include "../config.hpp"
#include "../ops.hpp"
#include "element.hpp"
#include "host/reduce.hpp"
#include "reduce_geometry.hpp"
#include "reduce_source.hpp"

#include UFUNC_CUDA_BACKEND("cuda/reduce.hpp")

namespace ufunc::detail {

/// Whether reduce_backend B can enqueue a whole reduction to a host value
/// without waiting (B::enqueue_to_host, for detail::defer_to).
template <class B, class = void>
struct defers_values : std::false_type {};
template <class B>
struct defers_values<B, std::enable_if_t<B::defers_values>> : std::true_type {};

struct identity_map {
  template <class T>
  UFUNC_HD constexpr T operator()(const T& v) const noexcept { return v; }
};

/// How the starting value is chosen: the op's identity when it has one, none at
/// all (NumPy's np.min: an empty input is an error), or the user's value.
struct default_init {};
struct no_init {};
template <class T>
struct given_init {
  T value;
};

/// What a reducer computes from the mapped elements.
struct plain_kind {};
struct mean_kind {};
template <bool Max>
struct arg_kind {};
/// argmin/argmax that stores the (value, index) accumulator itself instead of
/// the index: a streamed argmin/argmax's per-chunk partials (reduce.hpp), which
/// are combined across chunks before the index is taken.
template <bool Max>
struct arg_partial_kind {};
template <class Kind>
struct is_arg_kind : std::false_type {};
template <bool Max>
struct is_arg_kind<arg_kind<Max>> : std::true_type {};
/// The kind a streamed reduction computes each chunk with: partials that can
/// still be combined (a mean's sum, argmin/argmax's value and index).
template <class Kind>
struct chunk_kind {
  using type = plain_kind;
};
template <bool Max>
struct chunk_kind<arg_kind<Max>> {
  using type = arg_partial_kind<Max>;
};

/// The accumulator that reducing (or accumulating) M with Op chooses when the
/// caller names none: op's result type, except that sums and products
/// (`ufunc::plus`, `ufunc::multiplies`) of bool and narrow integers widen as
/// NumPy's do (element_traits::sum_acc). The one place this is decided.
template <class Op, class M>
struct default_acc {
  using natural = std::decay_t<std::invoke_result_t<const Op&, M, M>>;
  using wide = typename element_traits<M>::sum_acc;
  static constexpr bool widens =
      (std::is_same_v<Op, plus> || std::is_same_v<Op, multiplies>) && !std::is_void_v<wide>;
  using type = std::conditional_t<widens, wide, natural>;
};
template <class Op, class M>
using default_acc_t = typename default_acc<Op, M>::type;

template <class Kind, class AccOverride, class Op, class M>
struct kind_traits {  // plain: accumulate op's result type (or the override)
  using acc = std::conditional_t<std::is_void_v<AccOverride>, default_acc_t<Op, M>, AccOverride>;
  using lift = lift_cast<acc>;
  using op = Op;
  using fin = finish_same;
  static op make_op(const Op& o) { return o; }
  static fin make_fin(index_t) { return {}; }
};
template <class AccOverride, class Op, class M>
struct kind_traits<mean_kind, AccOverride, Op, M> {
  using acc = std::conditional_t<!std::is_void_v<AccOverride>, AccOverride, typename element_traits<M>::mean_acc>;
  using lift = lift_cast<acc>;
  using op = plus;
  using fin = finish_mean<acc>;
  static op make_op(const Op&) { return {}; }
  static fin make_fin(index_t r) { return {r}; }
};
template <bool Max, class AccOverride, class Op, class M>
struct kind_traits<arg_kind<Max>, AccOverride, Op, M> {
  using acc = arg_acc<M>;
  using lift = lift_arg<M>;
  using op = arg_pick<M, Max>;
  using fin = finish_index;
  static op make_op(const Op&) { return {}; }
  static fin make_fin(index_t) { return {}; }
};
template <bool Max, class AccOverride, class Op, class M>
struct kind_traits<arg_partial_kind<Max>, AccOverride, Op, M> : kind_traits<arg_kind<Max>, AccOverride, Op, M> {
  using fin = finish_same;
  static fin make_fin(index_t) { return {}; }
};

}  // namespace ufunc::detail
