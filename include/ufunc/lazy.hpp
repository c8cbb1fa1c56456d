// Lazy expressions, evaluated: ufunc::evaluate runs an expression (expression.hpp)
// as one fused kernel. Expressions are also accepted, and fused, by every eager
// ufunc call (vectorize.hpp) and every reduction (reduce.hpp).
#pragma once

#include <type_traits>

#include "detail/call.hpp"
#include "detail/trace.hpp"
#include "expression.hpp"
#include "stream.hpp"
#include "vectorize.hpp"

namespace ufunc {

/// Evaluates expression `e` in one kernel: its functions run on the values of
/// its leaves, with no intermediate arrays. Then optionally `ufunc::out(y)` (the
/// result is written there, converted to y's element type; y must have the
/// expression's shape or one it broadcasts to; its element type follows NumPy's
/// same_kind rule unless `ufunc::unsafe_cast` is given, else type_error; may be exactly one of the leaves
/// (in place, element for element) and must not partly overlap any leaf:
/// shape_error, with nothing written) and a stream (the default stream
/// otherwise). Returns a new array of the expression's element type and shape
/// on its target (a std::tuple of arrays when the last function has several
/// outputs; a host array when a device expression has host-memory leaves, which
/// stream through the device), or the out view(s). Enqueued on the stream; does not wait. An
/// expression with only scalar leaves runs on the build's device.
template <class E, class... C, std::enable_if_t<detail::is_expression_v<E>, int> = 0>
auto evaluate(const E& e, C&&... c) {
  using parsed = detail::call_args<detail::c_out | detail::c_stream | detail::c_unsafe_cast, detail::bare_t<C>...>;
  UFUNC_CHECK_TRAILING(parsed, "ufunc::evaluate", "ufunc::out(...), ufunc::unsafe_cast and a stream");
  const detail::trace_range range("evaluate");
  using B = detail::bare_t<E>;
  using Tg = std::conditional_t<std::is_void_v<typename B::target_type>, target::device, typename B::target_type>;
  const detail::controls ctl = detail::read_controls(c...);
  return detail::run_expression<Tg, parsed::has(detail::c_unsafe_cast)>(e, detail::out_views(c...), ctl.stream);
}

}  // namespace ufunc
