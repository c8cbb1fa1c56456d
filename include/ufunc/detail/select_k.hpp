// Dispatch of ufunc::argmin_k / argmax_k / min_k / max_k (select_k.hpp): the
// K first (value, index) pairs along one axis of a lazy expression (an array
// or view is taken as one), in topk's order, without evaluating the
// expression into memory. The expression's tree becomes the map of a
// reduction source over its leaves (reduce_source.hpp), split into kept and
// reduced dims as a reduction over that one axis is (reduce_geometry.hpp);
// the target's engine, select_k_backend<Target> (host/select_k.hpp,
// cuda/select_k.hpp), writes rows of K (the axis moved last), which are then
// moved back into place as topk's are (sort.hpp's axis_back).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "../array.hpp"
#include "../config.hpp"
#include "../error.hpp"
#include "../expression.hpp"
#include "../shape.hpp"
#include "../stream.hpp"
#include "call.hpp"
#include "element.hpp"
#include "expression.hpp"
#include "host/select_k.hpp"
#include "reduce_geometry.hpp"
#include "reduce_source.hpp"
#include "select_k_plan.hpp"
#include "sort.hpp"

#include UFUNC_CUDA_BACKEND("cuda/select_k.hpp")

namespace ufunc::detail {

/// The indices (x's shape with extent K along the axis) and, when asked for,
/// the values.
template <class T, class Target>
struct select_k_parts {
  using value_type = T;
  using target_type = Target;
  array<T, Target> values;
  array<index_t, Target> indices;
};

/// The target an expression's selection runs on (one with only scalar leaves
/// has no axis and never runs: the build's device, as evaluate's).
template <class E>
using select_k_target_t =
    std::conditional_t<std::is_void_v<typename E::target_type>, target::device, typename E::target_type>;

/// The selection along `axis` (normalised, extent >= K) of expression e.
template <int K, bool Largest, class E>
auto select_k_along(const E& e, int axis, bool want_values, stream_ref s) {
  using Target = select_k_target_t<E>;
  using V = typename E::value_type;
  using Fn = typename E::function_type;
  const auto leaves = e.leaf_args();
  constexpr std::size_t nin = std::tuple_size_v<std::decay_t<decltype(leaves)>>;
  const std::array<operand_layout, nin> lay = layouts_of(leaves);
  std::array<bool, max_rank> mask{};
  mask[static_cast<std::size_t>(axis)] = true;
  const auto g = make_geometry<nin>(e.shape(), mask, false, lay);
  auto ins = std::apply([](const auto&... a) { return cuda::std::make_tuple(operand_of(a)...); }, leaves);
  using Src = map_source<V, lift_cast<V>, fused<Fn>, decltype(ins), static_cast<int>(nin)>;
  const Src src{lift_cast<V>{}, fused<Fn>{e.function()}, ins, make_plan<static_cast<int>(nin), std::uint64_t>(g.kept),
                make_plan<static_cast<int>(nin), std::uint64_t>(g.red)};
  const shape rows = select_k_rows_shape(e.shape(), axis, K);
  array<index_t, Target> idx(rows, s);
  array<V, Target> vals(want_values ? rows : shape(0), s);
  if (g.K > 0)
    select_k_backend<Target>::template run<K, Largest>(src, g.K, g.R, want_values ? vals.data() : nullptr, idx.data(),
                                                       s);
  const int nd = e.ndim();
  select_k_parts<V, Target> r{array<V, Target>(shape(0), s), axis_back(std::move(idx), nd, axis, s)};
  if (want_values) r.values = axis_back(std::move(vals), nd, axis, s);
  return r;
}

/// The public calls' one path: x (an expression, array or view) as an
/// expression, the checks (before anything is allocated or enqueued: the axis
/// as topk's, shape_error; K past the axis' extent, value_error), then the
/// selection.
template <int K, bool Largest, class X>
auto select_k_call(const char* name, X&& x, int axis, bool want_values, stream_ref s) {
  static_assert(K >= 1 && K <= 64, "ufunc::argmin_k / argmax_k / min_k / max_k: K is from 1 to 64 (for more, topk)");
  static_assert(is_expression_v<X> || arg_traits<bare_t<X>>::is_array,
                "ufunc::argmin_k / argmax_k / min_k / max_k: x is a lazy expression (f.lazy(...)), an array or a view");
  auto e = as_expression(std::forward<X>(x));
  using E = decltype(e);
  using V = typename E::value_type;
  static_assert(is_numeric_v<V>,
                "ufunc::argmin_k / argmax_k / min_k / max_k: the values are bool, integers or floating point (16-bit "
                "floats included)");
  static_assert(!(device_memory_target<typename E::target_type> && has_host_leaf<typename E::leaves_type>::value),
                "ufunc::argmin_k / argmax_k / min_k / max_k: a device expression with host-memory leaves does not "
                "stream here; copy them to the device first (ufunc::to_device)");
  const int a = sort_axis(name, axis, e.shape());
  check_select_k(name, K, axis, a, e.shape());
  auto r = select_k_along<K, Largest>(e, a, want_values, s);
  order_frees_after(e, s);
  return r;
}

}  // namespace ufunc::detail
