// The pieces of expression.hpp's lazy expressions: leaves (array_leaf,
// scalar_leaf), the parts a node is built from (part_of), the target a node
// takes (node_target), make_node, and the operators' argument rule. The
// expression class itself is public (expression.hpp); it is declared here.
#pragma once

#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "../array.hpp"
#include "../array_view.hpp"
#include "../error.hpp"
#include "../out.hpp"
#include "../shape.hpp"
#include "../stream.hpp"
#include "arg_traits.hpp"
#include "computed.hpp"
#include "expr_tree.hpp"
#include "memory.hpp"

namespace ufunc {
template <class Target, class Fn, class... Leaves>
class expression;
}  // namespace ufunc

namespace ufunc::detail {

/// An array leaf: a view of its elements, and the array itself when the
/// expression owns it (it was passed as an rvalue).
template <class T, class Tg>
struct array_leaf {
  using value_type = T;
  using target_type = Tg;
  array_view<const T, Tg> view;
  std::shared_ptr<const array<T, Tg>> owned;
  array_view<const T, Tg> arg() const { return view; }
};
/// A scalar leaf, broadcast everywhere.
template <class S>
struct scalar_leaf {
  using value_type = S;
  using target_type = void;
  S v;
  S arg() const { return v; }
};

template <class T>
struct is_expression : std::false_type {};

/// The target two parts of an expression agree on (void: no memory yet, only scalars).
template <class A, class B>
using join_target = std::conditional_t<std::is_void_v<A>, B, A>;
template <class A, class B>
inline constexpr bool targets_agree = std::is_void_v<A> || std::is_void_v<B> || std::is_same_v<A, B>;

template <class Tg, class Fn, class... L>
struct is_expression<expression<Tg, Fn, L...>> : std::true_type {};
template <class T>
inline constexpr bool is_expression_v = is_expression<bare_t<T>>::value;

/// One argument of a node as the node uses it: its function (leaf_fn for an
/// array or scalar), its leaves, its shape (arrays and expressions) and target.
template <class Fn, class Tg, class... L>
struct node_part {
  using fn_type = Fn;
  using target_type = Tg;
  Fn fn;
  std::tuple<L...> leaves;
  bool has_shape;
  ufunc::shape shp;
};

template <class A>
auto part_of(A&& a) {
  using B = bare_t<A>;
  using tr = arg_traits<B>;
  if constexpr (is_expression<B>::value) {
    static_assert(result_traits<typename B::value_type>::nout == 1,
                  "ufunc::lazy: a function with several outputs can only be the last step of an expression");
    return std::apply(
        [&](const auto&... l) {
          return node_part<typename B::function_type, typename B::target_type, bare_t<decltype(l)>...>{
              a.function(), a.leaves(), true, a.shape()};
        },
        a.leaves());
  } else if constexpr (tr::is_array) {
    using T = typename tr::value_type;
    using Tg = typename tr::target_type;
    array_leaf<T, Tg> l;
    static_assert(!is_pinned<B>::value || std::is_lvalue_reference_v<A>,
                  "ufunc::lazy: a pinned_array leaf is held as a view: pass a named one (it must outlive evaluation)");
    if constexpr (!is_view<B>::value && !std::is_lvalue_reference_v<A>) {
      // An rvalue array: the expression keeps it alive.
      auto p = std::make_shared<const array<T, Tg>>(std::move(a));
      l.view = p->view();
      l.owned = std::move(p);
    } else {
      l.view = array_view<const T, Tg>(a.view());
    }
    const ufunc::shape s = l.view.shape();
    return node_part<leaf_fn, Tg, array_leaf<T, Tg>>{leaf_fn{}, std::make_tuple(std::move(l)), true, s};
  } else {
    static_assert(!tr::is_vector,
                  "ufunc::lazy: a std::vector cannot be a leaf of an expression; make an array (ufunc::asarray) or a "
                  "view (ufunc::make_view) of it");
    static_assert(!is_out<B>::value,
                  "ufunc::lazy: an expression takes inputs only; give out(...) and a stream to ufunc::evaluate");
    static_assert(!is_stream_v<B>,
                  "ufunc::lazy: an expression takes inputs only; give out(...) and a stream to ufunc::evaluate");
    return node_part<leaf_fn, void, scalar_leaf<B>>{leaf_fn{}, std::make_tuple(scalar_leaf<B>{a}), false, {}};
  }
}

/// A part that is one computed leaf (a lazy random leaf; computed.hpp).
template <class P>
struct computed_part : std::false_type {};
template <class Tg, class L>
struct computed_part<node_part<leaf_fn, Tg, L>> : is_computed_leaf<L> {};
/// A part that is one host-memory array leaf (a host array or view, a
/// pinned_array, or ufunc::lazy of one): a device expression streams it. A
/// computed leaf pinned to the host has no memory to stream: its target must
/// agree with the node's, as a function's.
template <class P>
inline constexpr bool host_leaf_part = std::is_same_v<typename P::target_type, target::host> &&
                                       std::is_same_v<typename P::fn_type, leaf_fn> && !computed_part<P>::value;
/// A target with its own memory apart from the host's (CUDA builds only).
template <class Tg>
inline constexpr bool device_memory_target = !std::is_void_v<Tg> && !std::is_same_v<Tg, target::host>;

/// True when an expression (its leaves tuple) has a host-memory array leaf.
template <class Leaves>
struct has_host_leaf : std::false_type {};
template <class... L>
struct has_host_leaf<std::tuple<L...>> : std::bool_constant<(std::is_same_v<typename L::target_type, target::host> || ...)> {};

/// The target of a node over parts P (Hint: its function's target, void for an
/// operator). All parts must agree, except that host-memory leaves join a node
/// whose other parts (or function) are on a device target: evaluated there,
/// they stream through it (issue 14) as they do in an eager call. Function
/// nodes of host target never join a device node (their functions may be
/// host-only code).
template <class Hint, class... P>
struct node_target {
  template <bool SkipHostLeaves, class Acc, class... Q>
  struct fold {
    using type = Acc;
    static constexpr bool ok = true;
  };
  template <bool SkipHostLeaves, class Acc, class Q, class... Rest>
  struct fold<SkipHostLeaves, Acc, Q, Rest...> {
    static constexpr bool skip = SkipHostLeaves && host_leaf_part<Q>;
    using here = std::conditional_t<skip, void, typename Q::target_type>;
    using next = fold<SkipHostLeaves, join_target<Acc, here>, Rest...>;
    using type = typename next::type;
    static constexpr bool ok = targets_agree<Acc, here> && next::ok;
  };
  using strict = fold<true, Hint, P...>;  // every part but the host leaves
  static constexpr bool streams = device_memory_target<typename strict::type>;
  using type = std::conditional_t<streams, typename strict::type, typename fold<false, Hint, P...>::type>;
  static constexpr bool ok = streams ? strict::ok : fold<false, Hint, P...>::ok;
};

template <class Hint, class F, class... P>
auto make_node_from(const F& f, const char* name, P... parts) {
  using nt = node_target<Hint, P...>;
  static_assert(nt::ok, "ufunc::lazy: the arrays of an expression live in different targets' memory");
  std::vector<ufunc::shape> shapes;
  shape b;
  bool ok = true;
  ((parts.has_shape ? (shapes.push_back(parts.shp), ok = ok && broadcast_into(b, parts.shp)) : false), ...);
  if (!ok) (void)broadcast_shapes(shapes, name);  // throws shape_error naming the call and the shapes
  using Fn = node_fn<F, typename P::fn_type...>;
  auto leaves = std::tuple_cat(std::move(parts.leaves)...);
  return std::apply(
      [&](auto&... l) {
        return expression<typename nt::type, Fn, bare_t<decltype(l)>...>(
            Fn{f, cuda::std::make_tuple(parts.fn...)}, std::make_tuple(std::move(l)...), b, name);
      },
      leaves);
}

/// Builds the node `f(args...)`: the arguments' trees become its children and
/// their leaves its leaves. `Hint` is the target of the function (a ufunc's
/// target; void for the operators). Throws shape_error naming `name` and the
/// shapes when the arguments do not broadcast.
template <class Hint, class F, class... A>
auto make_node(const F& f, const char* name, A&&... a) {
  return make_node_from<Hint>(f, name, part_of(std::forward<A>(a))...);
}

/// After an expression ran on stream `s`: the arrays it owns are freed on their
/// own streams, which must not free them before `s` is done reading them.
template <class E>
void order_frees_after(const E& e, stream_ref s) {
  std::apply(
      [&](const auto&... l) {
        auto one = [&](const auto& leaf) {
          using L = bare_t<decltype(leaf)>;
          if constexpr (!std::is_void_v<typename L::target_type>)
            if (leaf.owned) memory<typename L::target_type>::order_after(leaf.owned->stream(), s);
        };
        (one(l), ...);
      },
      e.leaves());
}

/// The leaf expression of the computed array of shape `s` whose element i
/// (row-major) is g.value(i): on Target (void: none of its own, it joins any).
template <class Target, class Gen>
auto computed_expression(const Gen& g, const ufunc::shape& s, const char* name) {
  using L = computed_leaf<Gen, Target>;
  return expression<Target, leaf_fn, L>(leaf_fn{}, std::make_tuple(L{computed_view<Gen, Target>::whole(g, s)}), s,
                                        name);
}

/// `x` as an expression: itself if it is one, else a leaf.
template <class A>
auto as_expression(A&& a) {
  if constexpr (is_expression_v<A>) {
    return bare_t<A>(std::forward<A>(a));
  } else {
    auto p = part_of(std::forward<A>(a));
    using P = decltype(p);
    return std::apply(
        [&](auto&... l) {
          return expression<typename P::target_type, leaf_fn, bare_t<decltype(l)>...>(
              leaf_fn{}, std::make_tuple(std::move(l)...), p.has_shape ? p.shp : ufunc::shape{}, "lazy");
        },
        p.leaves);
  }
}

template <class A, class B>
inline constexpr bool either_expression =
    (is_expression_v<A> || is_expression_v<B>) && !is_sharded_operand_v<A> && !is_sharded_operand_v<B>;

}  // namespace ufunc::detail
