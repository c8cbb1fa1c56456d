// ufunc::expression: a lazy tree of ufunc calls and operators over arrays, views
// and scalars. A vocabulary header: building an expression runs nothing (it
// checks shapes); `ufunc::evaluate`, eager calls and reductions (lazy.hpp,
// vectorize.hpp, reduce.hpp) run it as one fused kernel.
#pragma once

#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "array.hpp"
#include "array_view.hpp"
#include "detail/arg_traits.hpp"
#include "detail/memory.hpp"
#include "detail/expr_tree.hpp"
#include "detail/expression.hpp"  // leaves, nodes and targets of expressions (detail::)
#include "error.hpp"
#include "out.hpp"
#include "shape.hpp"
#include "stream.hpp"

namespace ufunc {

/// A lazy expression: the function tree `Fn` (detail/expr_tree.hpp) over the
/// leaves `Leaves` (array views, owned arrays, scalars). Made by `f.lazy(...)`,
/// `ufunc::lazy(x)` and the operators + - * / on expressions; nothing runs until
/// it is evaluated (`ufunc::evaluate`), passed to an eager call or reduced. Its
/// shape is the broadcast shape of its leaves, checked when each node is built.
/// It holds named arrays as views (they must outlive every evaluation) and owns
/// arrays passed as rvalues. Copying an expression copies views and shares owned
/// arrays. `Target` is the target of its array leaves (void when it has none)
/// and functions; in a CUDA build a device expression may also have host-memory
/// leaves (host arrays and views, pinned_arrays), which its evaluation and its
/// reductions stream through the device in chunks (see
/// docs/streaming.md).
template <class Target, class Fn, class... Leaves>
class expression {
 public:
  using target_type = Target;
  using function_type = Fn;
  using leaves_type = std::tuple<Leaves...>;
  /// The element type of the result: the functions' result types, the C++
  /// arithmetic conversions for the operators.
  using value_type = std::decay_t<std::invoke_result_t<const detail::fused<Fn>&, const typename Leaves::value_type&...>>;
  static constexpr std::size_t leaf_count = sizeof...(Leaves);
  static_assert(leaf_count == Fn::leaves, "ufunc: an expression's tree and leaves disagree");
  static_assert(leaf_count <= detail::max_leaves,
                "ufunc::lazy: an expression has at most 32 leaves (arrays, views and scalars); evaluate a part of "
                "it into an array first");

  expression(Fn fn, std::tuple<Leaves...> leaves, ufunc::shape s, const char* name)
      : fn_(std::move(fn)), leaves_(std::move(leaves)), shape_(s), name_(name) {}

  /// The broadcast shape of the leaves.
  const ufunc::shape& shape() const noexcept { return shape_; }
  int ndim() const noexcept { return shape_.size(); }
  /// Number of elements of the result.
  index_t size() const noexcept { return shape_.count(); }
  /// The name of the last function (the root), used in error messages.
  const char* name() const noexcept { return name_; }

  /// The function tree and the leaves (for the evaluators).
  const Fn& function() const noexcept { return fn_; }
  const std::tuple<Leaves...>& leaves() const noexcept { return leaves_; }
  /// The leaves as call arguments: views and scalars, in the tree's leaf order.
  auto leaf_args() const {
    return std::apply([](const auto&... l) { return std::make_tuple(l.arg()...); }, leaves_);
  }

 private:
  Fn fn_;
  std::tuple<Leaves...> leaves_;
  ufunc::shape shape_;
  const char* name_;
};

/// The C++ operators on expressions (at least one operand an expression, the
/// other an expression, array, view or scalar): a new node, nothing runs. The
/// element type follows C++'s arithmetic conversions (int * float is float).
template <class A, class B, std::enable_if_t<detail::either_expression<A, B>, int> = 0>
auto operator+(A&& a, B&& b) {
  return detail::make_node<void>(detail::expr_add{}, "operator+", std::forward<A>(a), std::forward<B>(b));
}
template <class A, class B, std::enable_if_t<detail::either_expression<A, B>, int> = 0>
auto operator-(A&& a, B&& b) {
  return detail::make_node<void>(detail::expr_sub{}, "operator-", std::forward<A>(a), std::forward<B>(b));
}
template <class A, class B, std::enable_if_t<detail::either_expression<A, B>, int> = 0>
auto operator*(A&& a, B&& b) {
  return detail::make_node<void>(detail::expr_mul{}, "operator*", std::forward<A>(a), std::forward<B>(b));
}
template <class A, class B, std::enable_if_t<detail::either_expression<A, B>, int> = 0>
auto operator/(A&& a, B&& b) {
  return detail::make_node<void>(detail::expr_div{}, "operator/", std::forward<A>(a), std::forward<B>(b));
}
template <class A, std::enable_if_t<detail::is_expression_v<A>, int> = 0>
auto operator-(A&& a) {
  return detail::make_node<void>(detail::expr_neg{}, "operator-", std::forward<A>(a));
}

/// `x` (an array, a view or a scalar) as a leaf expression, so that the C++
/// operators build expressions from it: `ufunc::lazy(x) * b + 1.0f`. An rvalue
/// array is owned by the expression; a named one must outlive its evaluation.
/// An expression is returned as it is.
template <class A, std::enable_if_t<!detail::is_sharded_operand_v<A>, int> = 0>
auto lazy(A&& x) {
  return detail::as_expression(std::forward<A>(x));
}

}  // namespace ufunc
