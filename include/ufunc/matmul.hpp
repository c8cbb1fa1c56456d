// ufunc::matmul: matrix products with numpy.matmul's semantics, on the CUDA
// kernels (naive, tiled, optimized) or the host backend's blocked loops.
#pragma once

#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "array.hpp"
#include "array_view.hpp"
#include "config.hpp"
#include "detail/linalg.hpp"
#include "detail/linalg_plan.hpp"
#include "error.hpp"
#include "shape.hpp"
#include "stream.hpp"
#include "vectorize.hpp"  // out_t, out(), argument traits

namespace ufunc {

/// The matmul variants available on `Target`, slowest first (CUDA: naive,
/// tiled, optimized; host: blocked). Tests and benchmarks iterate this list.
template <class Target = target::device>
std::vector<matmul_variant> matmul_variants() {
  const auto& v = detail::linalg_registry<Target>::matmul_variants;
  return {v.begin(), v.end()};
}

namespace detail {

/// True for the arguments that may follow the arrays of matmul/transpose.
template <class A>
inline constexpr bool is_linalg_control_v =
    is_out<bare_t<A>>::value || is_stream_v<bare_t<A>> || std::is_same_v<bare_t<A>, matmul_variant> ||
    std::is_same_v<bare_t<A>, transpose_variant>;

/// The trailing arguments of matmul/transpose: at most one out(...), one
/// variant and one stream, in any order.
template <class Variant, class... R>
struct linalg_controls {
  static constexpr std::size_t n_out = (std::size_t(is_out<bare_t<R>>::value) + ... + 0);
  static constexpr std::size_t n_stream = (std::size_t(is_stream_v<bare_t<R>>) + ... + 0);
  static constexpr std::size_t n_variant = (std::size_t(std::is_same_v<bare_t<R>, Variant>) + ... + 0);
  static_assert(n_out + n_stream + n_variant == sizeof...(R),
                "ufunc: after the arrays, pass only ufunc::out(...), a variant of this operation and/or a stream");
  static_assert(n_out <= 1 && n_stream <= 1 && n_variant <= 1,
                "ufunc: give out(...), the variant and the stream at most once each");
  stream_ref stream;
  Variant variant = Variant::fastest;

  explicit linalg_controls(const R&... r) { (take(r), ...); }

 private:
  template <class A>
  void take(const A& a) {
    if constexpr (is_stream_v<bare_t<A>>) stream = stream_ref(a);
    if constexpr (std::is_same_v<bare_t<A>, Variant>) variant = a;
  }
};


/// Throws shape_error unless `out` can receive a result of shape `s` computed
/// from `ins` (exact shape, no self-overlap, no overlap with any input).
template <std::size_t N>
void check_linalg_out(const char* op, const operand_layout& out, const shape& s,
                      const std::array<operand_layout, N>& ins) {
  if (out.shp != s)
    throw shape_error(std::string(op) + ": out has shape " + out.shp.str() + " but the result has shape " + s.str());
  if (!no_internal_overlap(out))
    throw shape_error(std::string(op) + ": out of shape " + out.shp.str() +
                      " has overlapping elements (zero or colliding strides)");
  for (std::size_t i = 0; i < N; ++i)
    if (may_overlap(out, ins[i]))
      throw shape_error(std::string(op) + ": out of shape " + out.shp.str() + " overlaps input " + std::to_string(i) +
                        " of shape " + ins[i].shp.str() + " (the result cannot be computed in place)");
}

template <class A, class B>
struct matmul_types {
  using TA = arg_traits<bare_t<A>>;
  using TB = arg_traits<bare_t<B>>;
  static_assert(TA::is_array && TB::is_array, "ufunc::matmul: operands are ufunc arrays or array views");
  static_assert(std::is_same_v<typename TA::value_type, typename TB::value_type>,
                "ufunc::matmul: both operands must have the same element type");
  static_assert(std::is_same_v<typename TA::target_type, typename TB::target_type>,
                "ufunc::matmul: both operands must live on the same target");
  using value_type = typename TA::value_type;
  using target_type = typename TA::target_type;
  static_assert(std::is_same_v<value_type, float> || std::is_same_v<value_type, double>,
                "ufunc::matmul: element type must be float or double");
};

}  // namespace detail

/// Matrix product with numpy.matmul's rules. `A` and `B` are arrays or views
/// (any strides; float or double; same target). 2-D operands multiply as
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
/// variant the target lacks. Asynchronous on the stream like every ufunc call
/// (the host target runs synchronously). Float results are plain FP32
/// arithmetic (no TF32). On the CUDA target the call must be compiled by nvcc.
template <class A, class B, class... Rest>
auto matmul(const A& a, const B& b, Rest&&... rest) {
  using types = detail::matmul_types<A, B>;
  using T = typename types::value_type;
  using Tg = typename types::target_type;
  detail::require_launchable<Tg>();
  const detail::linalg_controls<matmul_variant, detail::bare_t<Rest>...> ctl(rest...);
  const stream_ref s = ctl.stream;
  detail::check_variant<Tg>("matmul", ctl.variant, detail::linalg_registry<Tg>::matmul_variants);

  const auto la = detail::layout_of(a), lb = detail::layout_of(b);
  const detail::matmul_shape ms = detail::matmul_shapes(la.shp, lb.shp);
  auto outs = std::tuple_cat(detail::outs_of(rest)...);
  static_assert(std::tuple_size_v<decltype(outs)> <= 1, "ufunc: matmul writes one output");

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
    detail::run_matmul<Tg, T>(ctl.variant, detail::make_gemm_args<T>(ms, ma, mb, mc), s);
    if (!direct) detail::copy_view<Tg, T>(lc, detail::contiguous_layout(tmp_c.data(), sizeof(T), ms.out), s);
  };

  if constexpr (std::tuple_size_v<decltype(outs)> == 1) {
    auto c = std::get<0>(outs);
    static_assert(std::is_same_v<typename decltype(c)::value_type, T>,
                  "ufunc::matmul: out must have the operands' element type");
    static_assert(std::is_same_v<typename decltype(c)::target_type, Tg>,
                  "ufunc::matmul: out must live on the operands' target");
    const auto lc = detail::layout_of(c);
    detail::check_linalg_out("matmul", lc, ms.out, std::array<detail::operand_layout, 2>{la, lb});
    compute(lc);
    return c;
  } else {
    array<T, Tg> c(ms.out, s);
    compute(detail::layout_of(c));
    return c;
  }
}

}  // namespace ufunc
