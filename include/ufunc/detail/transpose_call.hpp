// The pieces of transpose.hpp's call: the argument's check and the transpose
// of an array or view.
#pragma once

#include <initializer_list>
#include <tuple>
#include <vector>

#include "../array.hpp"
#include "../expression.hpp"
#include "../linalg_variants.hpp"
#include "call.hpp"
#include "linalg.hpp"
#include "linalg_plan.hpp"
#include "signature.hpp"
#include "trace.hpp"

namespace ufunc::detail {

/// transpose of an array or view (checked by transpose_impl).
template <class X, class... Rest>
auto transpose_array(const X& x, const std::vector<int>* axes, Rest&&... rest) {
  using TX = arg_traits<bare_t<X>>;
  using T = typename TX::value_type;
  using Tg = typename TX::target_type;
  require_launchable<Tg>();
  using args = call_args<c_out | c_stream | c_transpose_variant, bare_t<Rest>...>;
  UFUNC_CHECK_TRAILING(args, "ufunc::transpose", "ufunc::out(...), a ufunc::transpose_variant and a stream");
  const controls ctl = read_controls(rest...);
  check_variant<Tg>("transpose", ctl.tr_variant, linalg_registry<Tg>::transpose_variants);

  const operand_layout lx = layout_of(x);
  const int nd = lx.shp.size();
  std::vector<int> perm;
  if (axes) {
    perm = normalize_axes(*axes, lx.shp);
  } else {
    for (int d = nd - 1; d >= 0; --d) perm.push_back(d);
  }
  // The source as seen through the permutation: result dim k is x's dim perm[k].
  operand_layout src = lx;
  index_t dims[max_rank];
  for (int k = 0; k < nd; ++k) {
    const int d = perm[static_cast<std::size_t>(k)];
    dims[k] = lx.shp[d];
    src.strides[static_cast<std::size_t>(k)] = lx.strides[static_cast<std::size_t>(d)];
  }
  src.shp = shape(dims, dims + nd);

  auto outs = out_views(rest...);
  static_assert(std::tuple_size_v<decltype(outs)> <= 1, "ufunc::transpose: out(...) takes one array (transpose has one result)");
  if constexpr (std::tuple_size_v<decltype(outs)> == 1) {
    auto y = exact_out<T, Tg>(outs);
    const operand_layout ly = layout_of(y);
    check_exact_out("transpose", ly, src.shp, std::array<operand_layout, 1>{lx});
    copy_view<Tg, T>(ly, src, ctl.stream, ctl.tr_variant);
    return y;
  } else {
    array<T, Tg> y(src.shp, ctl.stream);
    copy_view<Tg, T>(contiguous_layout(y.data(), sizeof(T), src.shp), src, ctl.stream, ctl.tr_variant);
    return y;
  }
}

/// Checks the argument (one message, nothing else instantiated after it), then
/// transposes it.
template <class X, class... Rest>
auto transpose_impl(const X& x, const std::vector<int>* axes, Rest&&... rest) {
  constexpr bool lazy = is_expression_v<X> || is_sharded_expr<bare_t<X>>::value;
  static_assert(!lazy, "ufunc::transpose: the argument is a lazy expression and transpose does not fuse: call "
                       "ufunc::evaluate first");
  static_assert(lazy || arg_traits<bare_t<X>>::is_array, "ufunc::transpose: takes a ufunc array or array view");
  if constexpr (lazy || !arg_traits<bare_t<X>>::is_array)
    return failed_call{};
  else {
    const trace_range range("transpose");
    return transpose_array(x, axes, std::forward<Rest>(rest)...);
  }
}

}  // namespace ufunc::detail
