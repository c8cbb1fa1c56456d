// ufunc::matmul: matrix products with numpy.matmul's semantics, on the CUDA
// kernels (naive, tiled, optimized) or the host backend's blocked loops.
#pragma once

#include <tuple>
#include <type_traits>
#include <vector>

#include "array.hpp"
#include "detail/call.hpp"     // arguments, controls, out checks
#include "detail/element.hpp"  // element_traits::has_matmul
#include "detail/linalg.hpp"   // registry, run_matmul, copy_view
#include "detail/signature.hpp"  // failed_call
#include "expression.hpp"
#include "linalg_variants.hpp"
#include "detail/trace.hpp"

namespace ufunc {

/// The matmul variants available on `Target` for element type `T`, slowest
/// first (CUDA: naive, tiled, optimized for float and double; naive and
/// tensor_core for __half and __nv_bfloat16; host: blocked). Tests and
/// benchmarks iterate this list.
template <class Target = target::device, class T = float>
std::vector<matmul_variant> matmul_variants() {
  return detail::as_vector(detail::linalg_registry<Target>::template matmul_variants_for<T>());
}

namespace detail {

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

}  // namespace detail

/// Matrix product with numpy.matmul's rules. `A` and `B` are arrays or views
/// (any strides; float, double, __half or __nv_bfloat16; same type and target). 2-D operands multiply as
/// (m,k) @ (k,n) -> (m,n); a 1-D operand is promoted to a row (first) or a
/// column (second) and the added dim is removed from the result; N-d operands
/// are stacks of matrices whose leading (batch) dims broadcast. Returns a new
/// contiguous array, or, with `ufunc::out(C)`, writes C (which must have exactly
/// the result's shape and must not overlap A or B: the product cannot be formed
/// in place) and returns its view. Optional trailing arguments, in any order:
/// `ufunc::out(C)`, a `ufunc::matmul_variant` (default `fastest`), a stream.
///
/// Layouts: the kernels read rows with unit stride and any row stride; an
/// operand that is not (a transposed view, a column slice with a step) is first
/// copied to a contiguous temporary by the transpose kernels (cost O(size of
/// the operand), small next to the O(m n k) product). Likewise an `out` view
/// without unit column stride receives the result through a temporary.
///
/// Errors (thrown before any work is enqueued): shape_error for 0-d operands,
/// mismatched inner dims (naming both shapes), batch dims that do not
/// broadcast, a wrong `out` shape or an overlapping `out`; value_error for a
/// variant the target lacks for the element type. A lazy expression operand is
/// refused at compile time (matmul does not fuse: `ufunc::evaluate` it first).
/// Asynchronous on the stream
/// like every ufunc call (the host target runs synchronously). Float results
/// are plain FP32 arithmetic (no TF32). 16-bit inputs accumulate in float and
/// round once to their own type (the result has the inputs' type): on CUDA on
/// the tensor cores (wgmma where the program was built with sm_90a code, e.g.
/// CMAKE_CUDA_ARCHITECTURES=90a, for a Hopper GPU; mma.sync otherwise), on the
/// host in float loops. On the CUDA target the call must be compiled by nvcc.
template <class A, class B, class... Rest>
auto matmul(const A& a, const B& b, Rest&&... rest) {
  if constexpr (!detail::matmul_operands_ok<A, B>())
    return detail::failed_call{};  // the check's message stopped the build
  else
    return detail::matmul_checked(a, b, std::forward<Rest>(rest)...);
}

}  // namespace ufunc
