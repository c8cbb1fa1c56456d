// The device side of a lazy expression: its functions as one functor over the
// values of its leaves. A tree of ufunc calls and operators becomes
// `fused<Root>`, called by the kernels with one value per leaf (leaves numbered
// depth first, left to right), exactly as an eager call's functor is called with
// one value per input. So an expression runs on every elementwise and reduction
// path an eager call does: its leaves are the operands (each with its own walk
// mode and vector width) and only the functor differs.
#pragma once

#include <cstddef>
#include <cuda/std/tuple>
#include <type_traits>
#include <utility>

#include "../config.hpp"
#include "operand.hpp"  // UFUNC_EXEC_CHECK_DISABLE

namespace ufunc::detail {

/// The most leaves (arrays, views, scalars) one expression may have: every leaf
/// is a kernel operand with its own strides in the launch parameters.
inline constexpr std::size_t max_leaves = 32;

/// A leaf: the value of leaf O of the call.
struct leaf_fn {
  static constexpr std::size_t leaves = 1;
  /// Whether leaf position `pos` of this subtree starts one of its inputs
  /// (see node_fn::starts_input): a leaf is one.
  static constexpr bool starts_input(std::size_t) { return true; }
  template <std::size_t O, class Vals>
  UFUNC_HD const auto& eval(const Vals& v) const noexcept {
    return cuda::std::get<O>(v);
  }
};

template <class... C>
constexpr std::size_t leaf_count() {
  return (std::size_t(0) + ... + C::leaves);
}
/// Leaves before child I of a node with children C...
template <std::size_t I, class... C>
constexpr std::size_t leaves_before() {
  constexpr std::size_t n[] = {C::leaves..., 0};
  std::size_t s = 0;
  for (std::size_t k = 0; k + 1 <= I; ++k) s += n[k];  // (k < I warns for I == 0)
  return s;
}

/// F::starts_input(k) where F has it (core_fn: whether argument k starts one of
/// its vec<D> inputs), else true (every argument is an input).
template <class F, class = void>
struct arg_starts_input {
  static constexpr bool at(std::size_t) { return true; }
};
template <class F>
struct arg_starts_input<F, std::void_t<decltype(F::starts_input(std::size_t(0)))>> {
  static constexpr bool at(std::size_t k) { return F::starts_input(k); }
};

/// A function applied to its children's values.
template <class F, class... C>
struct node_fn {
  static constexpr std::size_t leaves = leaf_count<C...>();
  F f;
  cuda::std::tuple<C...> kids;

  /// Whether leaf position `pos` (0 .. leaves) starts one of the subtree's
  /// inputs, i.e. is not inside the D leaves that make one vec<D> argument of
  /// some node's function: the pairwise kernels' fixed roles are compiled only
  /// for such splits (cuda/reduce.hpp's pick_pairwise_kernel).
  static constexpr bool starts_input(std::size_t pos) {
    constexpr std::size_t n[] = {C::leaves..., 0};
    std::size_t b = 0;
    for (std::size_t k = 0; k < sizeof...(C); ++k) {
      if (pos == b) return arg_starts_input<F>::at(k);
      if (pos < b + n[k]) return kid_starts_input(k, pos - b);
      b += n[k];
    }
    return pos == b;
  }

  // noexcept exactly when every function of the subtree is (for these values),
  // so that an expression of noexcept functions writes out in place on the host.
  UFUNC_EXEC_CHECK_DISABLE
  template <std::size_t O, class Vals>
  UFUNC_HD auto eval(const Vals& v) const noexcept(noexcept(call<O>(v, std::index_sequence_for<C...>{}))) {
    return call<O>(v, std::index_sequence_for<C...>{});
  }

 private:
  static constexpr bool kid_starts_input(std::size_t k, std::size_t p) {
    std::size_t i = 0;
    bool r = true;
    ((i++ == k ? (r = C::starts_input(p), 0) : 0), ...);
    return r;
  }

  UFUNC_EXEC_CHECK_DISABLE
  template <std::size_t O, class Vals, std::size_t... I>
  UFUNC_HD auto call(const Vals& v, std::index_sequence<I...>) const
      noexcept(noexcept(f(cuda::std::get<I>(kids).template eval<O + leaves_before<I, C...>()>(v)...))) {
    return f(cuda::std::get<I>(kids).template eval<O + leaves_before<I, C...>()>(v)...);
  }
};

/// The functor a kernel calls: the tree evaluated on one value per leaf.
template <class Root>
struct fused {
  Root root;
  /// Root::starts_input: whether value `pos` of the call starts one of the tree's inputs.
  static constexpr bool starts_input(std::size_t pos) { return Root::starts_input(pos); }
  UFUNC_EXEC_CHECK_DISABLE
  template <class... V>
  UFUNC_HD auto operator()(const V&... v) const
      noexcept(noexcept(root.template eval<0>(cuda::std::tuple<const V&...>(v...)))) {
    static_assert(sizeof...(V) == Root::leaves, "ufunc: an expression is called with one value per leaf");
    return root.template eval<0>(cuda::std::tuple<const V&...>(v...));
  }
};

// The operators of expressions. Element types follow C++'s arithmetic
// conversions (int * float is float), as the same code on scalars would.
struct expr_add {
  template <class A, class B>
  UFUNC_HD constexpr auto operator()(const A& a, const B& b) const noexcept(noexcept(a + b)) { return a + b; }
};
struct expr_sub {
  template <class A, class B>
  UFUNC_HD constexpr auto operator()(const A& a, const B& b) const noexcept(noexcept(a - b)) { return a - b; }
};
struct expr_mul {
  template <class A, class B>
  UFUNC_HD constexpr auto operator()(const A& a, const B& b) const noexcept(noexcept(a * b)) { return a * b; }
};
struct expr_div {
  template <class A, class B>
  UFUNC_HD constexpr auto operator()(const A& a, const B& b) const noexcept(noexcept(a / b)) { return a / b; }
};
struct expr_neg {
  template <class A>
  UFUNC_HD constexpr auto operator()(const A& a) const noexcept(noexcept(-a)) { return -a; }
};

}  // namespace ufunc::detail
