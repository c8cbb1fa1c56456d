// The pieces of matmul.hpp's call: the operands' checks in order (one
// message each), their types, and the checked matmul.
#pragma once

#include <tuple>
#include <type_traits>
#include <vector>

#include "../array.hpp"
#include "../expression.hpp"
#include "../linalg_variants.hpp"
#include "call.hpp"
#include "element.hpp"
#include "linalg.hpp"
#include "signature.hpp"
#include "trace.hpp"

namespace ufunc::detail {

/// The operands' checks in order, each with its message: true when all hold.
/// A failed one stops there, so that one message, and no error that would
/// follow from it, is printed.
template <class A, class B>
constexpr bool matmul_operands_ok() {
  using TA = arg_traits<bare_t<A>>;
  using TB = arg_traits<bare_t<B>>;
  constexpr bool lazy = is_expression_v<A> || is_expression_v<B> || is_sharded_expr<bare_t<A>>::value ||
                        is_sharded_expr<bare_t<B>>::value;
  static_assert(!lazy, "ufunc::matmul: an operand is a lazy expression and matmul does not fuse: call "
                       "ufunc::evaluate first");
  if constexpr (lazy) {
    return false;
  } else {
    static_assert(TA::is_array && TB::is_array, "ufunc::matmul: operands are ufunc arrays or array views");
    if constexpr (!(TA::is_array && TB::is_array)) {
      return false;
    } else {
      constexpr bool same_type = std::is_same_v<typename TA::value_type, typename TB::value_type>;
      constexpr bool same_target = std::is_same_v<typename TA::target_type, typename TB::target_type>;
      constexpr bool has_matmul = element_traits<typename TA::value_type>::has_matmul;
      static_assert(same_type, "ufunc::matmul: both operands must have the same element type");
      static_assert(same_target, "ufunc::matmul: both operands must live on the same target");
      static_assert(!same_type || has_matmul,
                    "ufunc::matmul: element type must be float, double, __half or __nv_bfloat16");
      return same_type && same_target && has_matmul;
    }
  }
}

template <class A, class B>
struct matmul_types {
  using value_type = typename arg_traits<bare_t<A>>::value_type;
  using target_type = typename arg_traits<bare_t<A>>::target_type;
};

/// A contiguous copy of the view described by `src` (shape and strides).
template <class Target, class T>
array<T, Target> materialize(const operand_layout& src, stream_ref s) {
  array<T, Target> a(src.shp, s);
  copy_view<Target, T>(contiguous_layout(a.data(), sizeof(T), src.shp), src, s);
  return a;
}

/// matmul of operands that passed matmul_operands_ok.
template <class A, class B, class... Rest>
auto matmul_checked(const A& a, const B& b, Rest&&... rest) {
  using types = detail::matmul_types<A, B>;
  using T = typename types::value_type;
  using Tg = typename types::target_type;
  detail::require_launchable<Tg>();
  using args = detail::call_args<detail::c_out | detail::c_stream | detail::c_matmul_variant, detail::bare_t<Rest>...>;
  UFUNC_CHECK_TRAILING(args, "ufunc::matmul", "ufunc::out(...), a ufunc::matmul_variant and a stream");
  const detail::trace_range range("matmul");
  const detail::controls ctl = detail::read_controls(rest...);
  const stream_ref s = ctl.stream;
  detail::check_variant<Tg>("matmul", ctl.mm_variant,
                            detail::linalg_registry<Tg>::template matmul_variants_for<T>(), " for this element type");

  const auto la = detail::layout_of(a), lb = detail::layout_of(b);
  const detail::matmul_shape ms = detail::matmul_shapes(la.shp, lb.shp);
  auto outs = detail::out_views(rest...);
  static_assert(std::tuple_size_v<decltype(outs)> <= 1, "ufunc::matmul: out(...) takes one array (matmul has one result)");

  auto compute = [&](const detail::operand_layout& lc) {
    if (ms.out.count() == 0) return;
    // Operands: unit column stride in place, anything else through a copy.
    array<T, Tg> tmp_a, tmp_b, tmp_c;
    auto ma = detail::matrix_of(la, true);
    if (!detail::unit_cols(ma)) {
      tmp_a = detail::materialize<Tg, T>(la, s);
      ma = detail::matrix_of(detail::contiguous_layout(tmp_a.data(), sizeof(T), la.shp), true);
    }
    auto mb = detail::matrix_of(lb, false);
    if (!detail::unit_cols(mb)) {
      tmp_b = detail::materialize<Tg, T>(lb, s);
      mb = detail::matrix_of(detail::contiguous_layout(tmp_b.data(), sizeof(T), lb.shp), false);
    }
    auto mc = detail::result_matrix_of(lc, ms);
    const bool direct = detail::unit_cols(mc);
    if (!direct) {
      tmp_c = array<T, Tg>(ms.out, s);
      mc = detail::result_matrix_of(detail::contiguous_layout(tmp_c.data(), sizeof(T), ms.out), ms);
    }
    detail::run_matmul<Tg, T>(ctl.mm_variant, detail::make_gemm_args<T>(ms, ma, mb, mc), s);
    if (!direct) detail::copy_view<Tg, T>(lc, detail::contiguous_layout(tmp_c.data(), sizeof(T), ms.out), s);
  };

  if constexpr (std::tuple_size_v<decltype(outs)> == 1) {
    auto c = detail::exact_out<T, Tg>(outs);
    const auto lc = detail::layout_of(c);
    detail::check_exact_out("matmul", lc, ms.out, std::array<detail::operand_layout, 2>{la, lb});
    compute(lc);
    return c;
  } else {
    array<T, Tg> c(ms.out, s);
    compute(detail::layout_of(c));
    return c;
  }
}

}  // namespace ufunc::detail
