// The pieces of matmul.hpp's call: the operands' checks in order (one
// message each), their types, and the checked matmul.
#pragma once

#include <tuple>
#include <type_traits>
#include <vector>

#include <cuda/std/tuple>

#include "../array.hpp"
#include "../expression.hpp"
#include "../linalg_variants.hpp"
#include "call.hpp"
#include "element.hpp"
#include "elementwise.hpp"
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
                    "ufunc::matmul: element type must be float, double, __half, __nv_bfloat16 or "
                    "cuda::std::complex<float|double>");
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

// ---------------------------------------------------------------------------
// Complex products as one real product of twice the size:
//   [Re A, Im A] @ [[Re B, Im B], [-Im B, Re B]] = [Re C, Im C]
// (m x 2k) @ (2k x 2n): the real kernels at full speed, every part of C a sum of
// 2k real products accumulated in the real type (a complex64 product is float
// arithmetic, as cuBLAS's CGEMM). The operands are split by two elementwise
// passes (A into two blocks, B into four) and C is put together by a third.

/// (Re z, Im z).
struct complex_split {
  template <class C>
  UFUNC_HD cuda::std::tuple<typename C::value_type, typename C::value_type> operator()(const C& z) const {
    return {z.real(), z.imag()};
  }
};
/// The four blocks of B's real operand: Re, Im, -Im, Re.
struct complex_b_blocks {
  template <class C, class R = typename C::value_type>
  UFUNC_HD cuda::std::tuple<R, R, R, R> operator()(const C& z) const {
    return {z.real(), z.imag(), -z.imag(), z.real()};
  }
};
/// re + i im.
template <class C>
struct complex_join {
  template <class R>
  UFUNC_HD C operator()(R re, R im) const {
    return C(re, im);
  }
};

/// The block of shape `s` at element offset `off` inside the array laid out by `full`.
inline operand_layout block_of(const operand_layout& full, const shape& s, index_t off) {
  operand_layout r = full;
  r.shp = s;
  r.data = static_cast<const char*>(full.data) + off * static_cast<index_t>(full.elem_size);
  return r;
}

/// `s` with its last `nd` dims doubled.
inline shape doubled(shape s, int nd) {
  for (int d = s.size() - nd; d < s.size(); ++d) s[d] *= 2;
  return s;
}

/// The view of `l` (the layout of a contiguous array of R) as an array_view.
template <class R, class Tg>
array_view<R, Tg> view_of(const operand_layout& l) {
  return array_view<R, Tg>(static_cast<R*>(const_cast<void*>(l.data)), l.shp,
                           std::vector<index_t>(l.strides.begin(), l.strides.begin() + l.shp.size()));
}

/// C (laid out by lc) = A @ B for complex A, B (defined below matmul_checked, which it calls).
template <class Tg, class T>
void complex_matmul(const operand_layout& la, const operand_layout& lb, const operand_layout& lc,
                    const matmul_shape& ms, matmul_variant v, stream_ref s);

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
    if constexpr (is_complex_v<T>) {  // no kernel of T: the real product (complex_matmul)
      detail::complex_matmul<Tg, T>(la, lb, lc, ms, ctl.mm_variant, s);
    } else {
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
    }
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

/// C (laid out by lc) = A @ B for complex A, B (layouts la, lb; shapes ms).
template <class Tg, class T>
void complex_matmul(const operand_layout& la, const operand_layout& lb, const operand_layout& lc,
                    const matmul_shape& ms, matmul_variant v, stream_ref s) {
  using R = typename T::value_type;
  // A' = [Re A, Im A]: A's shape with the last dim doubled (a 1-D A stays 1-D).
  array<R, Tg> ar(doubled(la.shp, 1), s);
  const auto lar = layout_of(ar);
  const index_t k = ms.k;
  run_elementwise<Tg, cuda::std::tuple<R, R>>(
      complex_split{}, la.shp, cuda::std::make_tuple(ar.data(), ar.data() + k),
      cuda::std::make_tuple(in_ptr<T>{static_cast<const T*>(la.data)}),
      std::array<operand_layout, 3>{block_of(lar, la.shp, 0), block_of(lar, la.shp, k), la}, s);
  // B' = [[Re B, Im B], [-Im B, Re B]]: a 1-D B is the column (k, 1) here, so that
  // the real product's last dim holds (Re, Im) of each result element.
  operand_layout lb2 = lb;
  if (ms.b_vector) {
    lb2.shp = shape{ms.k, 1};
    lb2.strides[1] = 0;
  }
  const index_t n = ms.n, w = 2 * n;  // w: B''s row length
  array<R, Tg> br(doubled(lb2.shp, 2), s);
  const auto lbr = layout_of(br);
  R* bp = br.data();
  run_elementwise<Tg, cuda::std::tuple<R, R, R, R>>(
      complex_b_blocks{}, lb2.shp, cuda::std::make_tuple(bp, bp + n, bp + k * w, bp + k * w + n),
      cuda::std::make_tuple(in_ptr<T>{static_cast<const T*>(lb.data)}),
      std::array<operand_layout, 5>{block_of(lbr, lb2.shp, 0), block_of(lbr, lb2.shp, n), block_of(lbr, lb2.shp, k * w),
                                    block_of(lbr, lb2.shp, k * w + n), lb2},
      s);
  // C' = A' @ B': shape (batch..., [m,] 2n); Re C is its first n columns, Im C the rest.
  array<R, Tg> cr = matmul_checked(view_of<const R, Tg>(lar), view_of<const R, Tg>(lbr), v, s);
  // Each C dim is C''s dim of the same place (a 1-D B leaves C' a last dim of 2 that
  // C lacks): the blocks keep C''s strides.
  const auto lcr = layout_of(cr);
  const operand_layout re = block_of(lcr, lc.shp, 0), im = block_of(lcr, lc.shp, n);
  run_elementwise<Tg, T>(complex_join<T>{}, lc.shp, cuda::std::make_tuple(static_cast<T*>(const_cast<void*>(lc.data))),
                         cuda::std::make_tuple(in_ptr<R>{static_cast<const R*>(re.data)}, in_ptr<R>{static_cast<const R*>(im.data)}),
                         std::array<operand_layout, 3>{lc, re, im}, s);
}

}  // namespace ufunc::detail
