// The call front end. Every public operation (a ufunc call, a reduction, the
// ufunc methods, matmul, transpose, parallel_for) takes its arguments through
// here:
//   - classify them: leading inputs (arrays, views, host containers, scalars),
//     then trailing controls (`out(...)`, a stream, `axis`/`axes`, `keepdims`, a
//     matmul/transpose variant, a `launch_config`);
//   - one rule for every operation, checked at compile time by UFUNC_CHECK_CALL:
//     inputs first; only the controls the operation takes; each control at most
//     once (so at most one stream and one `out` per call); the message names the
//     call;
//   - read the controls' run-time values (`read_controls`), the `out` views
//     (`out_views`);
//   - the target of the call, host containers staged to it, the inputs'
//     layouts and operands, their broadcast shape, and the checks of an `out`.
// Host-only: nothing here launches work.
#pragma once

#include <array>
#if defined(UFUNC_TESTING)
#  include <atomic>
#endif
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "../array.hpp"
#include "../array_view.hpp"
#include "../axis.hpp"
#include "../error.hpp"
#include "../launch_config.hpp"
#include "../linalg_variants.hpp"
#include "../out.hpp"
#include "../shape.hpp"
#include "../stream.hpp"
#include "arg_traits.hpp"
#include "computed.hpp"
#include "element.hpp"
#include "layout.hpp"
#include "operand.hpp"

namespace ufunc::detail {

// ---------------------------------------------------------------------------
// Trailing controls

/// The kinds of trailing argument; an operation allows a set of them.
enum control : unsigned {
  not_control = 0,
  c_out = 1u << 0,
  c_stream = 1u << 1,
  c_axes = 1u << 2,  ///< ufunc::axis or ufunc::axes
  c_keepdims = 1u << 3,
  c_matmul_variant = 1u << 4,
  c_transpose_variant = 1u << 5,
  c_launch_config = 1u << 6,
  c_unsafe_cast = 1u << 7,
  c_defer = 1u << 8,  ///< detail::defer_to: internal (the sharded engine's whole reductions)
};

/// Where a whole reduction's value will be, once its stream is synchronised: a
/// backend that can leave it in pinned memory without waiting (the CUDA
/// backend's reduce_scratch slot, per thread and device) sets `slot`, and the
/// call returns a placeholder; else the call returns the value and `slot`
/// stays null. The slot holds the value until the next reduction to a host
/// value on the same thread and device.
struct deferred_value {
  const void* slot = nullptr;
};
/// The control asking a whole reduction to defer its value (not public: the
/// sharded engine enqueues every shard's reduction, then waits once).
struct defer_to {
  deferred_value* into;
};

template <class A>
constexpr control control_of() {
  using B = bare_t<A>;
  if constexpr (is_out<B>::value) return c_out;
  else if constexpr (is_stream_v<B>) return c_stream;
  else if constexpr (std::is_same_v<B, axis> || std::is_same_v<B, axes>) return c_axes;
  else if constexpr (std::is_same_v<B, keepdims_t>) return c_keepdims;
  else if constexpr (std::is_same_v<B, matmul_variant>) return c_matmul_variant;
  else if constexpr (std::is_same_v<B, transpose_variant>) return c_transpose_variant;
  else if constexpr (std::is_same_v<B, launch_config>) return c_launch_config;
  else if constexpr (std::is_same_v<B, unsafe_cast_t>) return c_unsafe_cast;
  else if constexpr (std::is_same_v<B, defer_to>) return c_defer;
  else return not_control;
}

/// Facts about a list of control kinds (the argument list's, then a sentinel).
struct control_list {
  control k[48] = {};  // an expression's 32 leaves, then its out and stream, fit
  std::size_t n = 0;  // arguments, without the sentinel
  constexpr std::size_t first_control() const {
    std::size_t i = 0;
    while (i < n && k[i] == not_control) ++i;
    return i;
  }
  constexpr std::size_t count(control c) const {
    std::size_t m = 0;
    for (std::size_t i = 0; i < n; ++i) m += k[i] == c;
    return m;
  }
  constexpr bool only(unsigned allowed) const {
    for (std::size_t i = 0; i < n; ++i)
      if (k[i] != not_control && !(k[i] & allowed)) return false;
    return true;
  }
  /// Each kind at most once (out, stream and axes have messages of their own).
  /// Every kind present is counted, so a control added to the enum is covered
  /// without touching this (a loop over the enum's range once stopped at the
  /// last kind it knew).
  constexpr bool once_each() const {
    constexpr unsigned own_message = c_out | c_stream | c_axes;
    for (std::size_t i = 0; i < n; ++i)
      if (k[i] != not_control && !(k[i] & own_message) && count(k[i]) > 1) return false;
    return true;
  }
};
template <class... A>
constexpr control_list control_list_of() {
  static_assert(sizeof...(A) <= 48, "ufunc: a call takes at most 48 arguments");
  control_list l{{control_of<A>()...}, sizeof...(A)};
  return l;
}

/// The shape of a call's argument list A..., for an operation taking the
/// controls in `Allowed`: where the inputs end and whether the rule holds.
template <unsigned Allowed, class... A>
struct call_args {
  static constexpr control_list list = control_list_of<A...>();
  /// Number of leading inputs (everything before the first control).
  static constexpr std::size_t nin = list.first_control();
  static constexpr std::size_t count(control c) { return list.count(c); }
  static constexpr bool has(control c) { return list.count(c) > 0; }
  /// No input after a control.
  static constexpr bool inputs_first = list.count(not_control) == nin;
  /// Every control is one the operation takes.
  static constexpr bool only_allowed = list.only(Allowed);
  /// keepdims, a variant, a launch_config, unsafe_cast at most once each.
  static constexpr bool once_each = list.once_each();
};

}  // namespace ufunc::detail

/// The one rule of every call's trailing arguments, checked at compile time.
/// `ARGS` is a `call_args<...>` type, `NAME` the call as users spell it and
/// `CONTROLS` the list of controls it takes, both string literals.
#define UFUNC_CHECK_CALL(ARGS, NAME, CONTROLS)                                                                  \
  static_assert(ARGS::inputs_first, NAME ": inputs come first, then " CONTROLS);                              \
  static_assert(ARGS::only_allowed, NAME ": after the inputs it takes only " CONTROLS);                       \
  static_assert(ARGS::count(::ufunc::detail::c_stream) <= 1, NAME ": give at most one stream");              \
  static_assert(ARGS::count(::ufunc::detail::c_out) <= 1,                                                     \
                NAME ": give at most one ufunc::out(...) (list several outputs in one: out(a, b))");          \
  static_assert(ARGS::count(::ufunc::detail::c_axes) <= 1, NAME ": give the axes once (axis or axes)");      \
  static_assert(ARGS::once_each, NAME ": give each of " CONTROLS " at most once")

/// The rule for an operation whose inputs are fixed parameters (matmul's two
/// operands, transpose's array, parallel_for's space and function): every
/// argument after them must be a control.
#define UFUNC_CHECK_TRAILING(ARGS, NAME, CONTROLS)                                 \
  static_assert(ARGS::nin == 0, NAME ": after its operands it takes only " CONTROLS); \
  UFUNC_CHECK_CALL(ARGS, NAME, CONTROLS)

namespace ufunc::detail {

/// The run-time values of a call's controls (defaults where absent).
struct controls {
  stream_ref stream;
  bool has_axes = false, keepdims = false, has_launch = false, unsafe_cast = false;
  bool single_axis = false;  ///< given as ufunc::axis(k), not ufunc::axes{...}
  std::vector<int> axes_list;
  matmul_variant mm_variant = matmul_variant::fastest;
  transpose_variant tr_variant = transpose_variant::fastest;
  launch_config launch;
  deferred_value* defer = nullptr;  ///< from defer_to

  template <class A>
  void take(const A& a) {
    using B = bare_t<A>;
    constexpr control c = control_of<B>();
    if constexpr (c == c_stream) {
      stream = stream_ref(a);
    } else if constexpr (std::is_same_v<B, axis>) {
      has_axes = true;
      single_axis = true;
      axes_list = {a.value};
    } else if constexpr (std::is_same_v<B, axes>) {
      has_axes = true;
      axes_list = a.list;
    } else if constexpr (c == c_keepdims) {
      keepdims = true;
    } else if constexpr (c == c_matmul_variant) {
      mm_variant = a;
    } else if constexpr (c == c_transpose_variant) {
      tr_variant = a;
    } else if constexpr (c == c_launch_config) {
      has_launch = true;
      launch = a;
    } else if constexpr (c == c_unsafe_cast) {
      unsafe_cast = true;
    } else if constexpr (c == c_defer) {
      defer = a.into;
    }
  }
  /// The axes given, or null for "all".
  const std::vector<int>* axes_or_null() const { return has_axes ? &axes_list : nullptr; }
};

#if defined(UFUNC_TESTING)
namespace testing {
/// Test-only count of read_controls calls (the parses of calls' trailing
/// arguments): a call parses once, its expressions, shards' plans and streamed
/// chunks not again (tests/test_trace.cpp, tests/test_streaming_arg.cpp).
inline std::atomic<long>& controls_reads() {
  static std::atomic<long> n{0};
  return n;
}
}  // namespace testing
#endif

template <class... A>
controls read_controls(const A&... a) {
#if defined(UFUNC_TESTING)
  testing::controls_reads().fetch_add(1, std::memory_order_relaxed);
#endif
  controls c;
  (c.take(a), ...);
  return c;
}

/// The output views an argument carries: those of an `out(...)`, else none.
template <class A>
auto outs_of(const A& a) {
  if constexpr (is_out<bare_t<A>>::value)
    return a.views;
  else
    return std::tuple<>{};
}
/// The views of the call's `out(...)` (an empty tuple without one).
template <class... A>
auto out_views(const A&... a) {
  return std::tuple_cat(outs_of(a)...);
}

// ---------------------------------------------------------------------------
// Inputs

/// The target of a call: that of its array arguments (all must agree, see
/// `consistent`), or the build's device when there are none (host containers
/// are then copied there). A computed argument pinned to a target counts as an
/// array of that target; an unpinned one as nothing (it runs anywhere).
template <class... A>
struct common_target {
  template <class X>
  using tg = typename arg_traits<bare_t<X>>::target_type;
  template <class X>
  static constexpr bool is_arr = arg_traits<bare_t<X>>::is_array || is_pinned_computed_v<X>;
  template <class Acc, class X>
  using pick = std::conditional_t<std::is_void_v<Acc> && is_arr<X>, tg<X>, Acc>;
  template <class Acc, class... X>
  struct fold {
    using type = Acc;
  };
  template <class Acc, class X, class... Rest>
  struct fold<Acc, X, Rest...> {
    using type = typename fold<pick<Acc, X>, Rest...>::type;
  };
  using found = typename fold<void, A...>::type;
  using type = std::conditional_t<std::is_void_v<found>, target::device, found>;
  static constexpr bool consistent = ((!is_arr<A> || std::is_same_v<tg<A>, type>) && ...);
  static constexpr bool any_vector = (arg_traits<bare_t<A>>::is_vector || ...);
  static constexpr bool any_array = (is_arr<A> || ...);
};

/// An input as a call on Target uses it: a host container on a device target is
/// copied there (the documented slow path), an array becomes its view, a scalar
/// stays itself.
template <class Target, class A>
auto stage(const A& a, stream_ref s) {
  if constexpr (arg_traits<A>::is_vector && !std::is_same_v<Target, target::host>)
    return asarray<Target>(a, s);
  else if constexpr (is_pinned<A>::value && !std::is_same_v<Target, target::host>)
    return asarray<Target>(a.data(), a.shape(), s);
  else if constexpr (arg_traits<A>::is_array)
    return a.view();
  else
    return a;
}

/// An argument's memory layout (is_array false for a scalar; a computed array's
/// is an array's with no memory, computed.hpp).
template <class A>
operand_layout layout_of(const A& a) {
  using B = arg_traits<A>;
  operand_layout l;
  if constexpr (is_computed_arg_v<A>) {
    l = a.layout();
  } else if constexpr (B::is_array) {
    const auto v = a.view();
    l.is_array = true;
    l.data = v.data();
    l.elem_size = sizeof(typename B::value_type);
    l.shp = v.shape();
    for (int d = 0; d < v.ndim(); ++d) l.strides[static_cast<std::size_t>(d)] = v.stride(d);
  } else if constexpr (B::is_vector) {
    l.is_array = true;
    l.data = a.data();
    l.elem_size = sizeof(typename B::value_type);
    l.shp = shape(static_cast<index_t>(a.size()));
    l.strides[0] = 1;
  }
  return l;
}

template <class Tuple, std::size_t... I>
auto layouts_of(const Tuple& t, std::index_sequence<I...>) {
  return std::array<operand_layout, sizeof...(I)>{layout_of(std::get<I>(t))...};
}
/// The layouts of a tuple's elements, in order.
template <class... A>
std::array<operand_layout, sizeof...(A)> layouts_of(const std::tuple<A...>& t) {
  return layouts_of(t, std::index_sequence_for<A...>{});
}

/// An argument as a kernel operand (see operand.hpp): its elements (in memory,
/// or computed), or its value broadcast everywhere.
template <class A>
auto operand_of(const A& a) {
  using B = arg_traits<A>;
  if constexpr (is_computed_arg_v<A>)
    return a.operand();
  else if constexpr (B::is_array || B::is_vector)
    return in_ptr<typename B::value_type>{a.data()};
  else
    return in_value<A>{a};
}

/// The broadcast shape of the array inputs (NumPy's rules); shape_error naming
/// the call and every input shape when they do not broadcast.
template <std::size_t N>
shape broadcast_inputs(const char* name, const std::array<operand_layout, N>& ins) {
  shape b;
  for (const auto& l : ins)
    if (l.is_array && !broadcast_into(b, l.shp)) {  // the slow path only builds the message
      std::vector<shape> shapes;
      for (const auto& x : ins)
        if (x.is_array) shapes.push_back(x.shp);
      (void)broadcast_shapes(shapes, name);
    }
  return b;
}

/// The reduced axes as NumPy prints them: "all" or "(0,2)".
inline std::string axes_str(const std::vector<int>* ax) {
  if (!ax) return "all";
  std::string s = "(";
  for (std::size_t i = 0; i < ax->size(); ++i) s += (i ? "," : "") + std::to_string((*ax)[i]);
  return s + (ax->size() == 1 ? ",)" : ")");
}

// ---------------------------------------------------------------------------
// Outputs

/// Raises shape_error unless output j's shape `to` receives the inputs' broadcast
/// shape `from` (it broadcasts to exactly `to`).
inline void check_broadcasts_to(const char* op, const shape& from, const shape& to, std::size_t j) {
  bool ok = from.size() <= to.size();
  for (int i = 1; ok && i <= from.size(); ++i) {
    const index_t f = from[from.size() - i], t = to[to.size() - i];
    ok = f == t || f == 1;
  }
  if (!ok)
    throw shape_error(std::string(op) + ": output " + std::to_string(j) + " has shape " + to.str() +
                      " but the inputs broadcast to " + from.str());
}

/// Throws type_error unless a result of type R may be stored into output j of
/// element type O: NumPy's same_kind rule, or anything with `unsafe_cast`.
template <class R, class O>
void check_out_cast(const char* op, bool unsafe, std::size_t j = 0) {
  if constexpr (!same_kind_cast<R, O>())
    if (!unsafe)
      throw type_error(std::string(op) + ": cannot store the " + element_name<R>() + " result in output " +
                       std::to_string(j) + " of type " + element_name<O>() +
                       " under the same_kind rule (pass ufunc::unsafe_cast to convert anyway)");
}

/// The view of a call's one `out` for a result of element type T on target Tg,
/// for operations that do not convert on the way out (matmul, transpose).
template <class T, class Tg, class Outs>
auto exact_out(const Outs& outs) {
  auto v = std::get<0>(outs);
  static_assert(std::is_same_v<typename decltype(v)::value_type, T>,
                "ufunc: out(...) must have the result's element type (this operation does not convert)");
  static_assert(std::is_same_v<typename decltype(v)::target_type, Tg>,
                "ufunc: out(...) must live on the operands' target");
  return v;
}

/// Throws shape_error unless `out` has distinct elements and shares none with any
/// input (operations that read inputs after writing results: matmul, transpose,
/// reductions; elementwise calls allow `out` to be exactly an input instead).
template <std::size_t N>
void check_out_apart(const char* op, const operand_layout& out, const std::array<operand_layout, N>& ins) {
  if (!no_internal_overlap(out))
    throw shape_error(std::string(op) + ": out of shape " + out.shp.str() +
                      " has overlapping elements (zero or colliding strides)");
  for (std::size_t i = 0; i < N; ++i)
    if (may_overlap(out, ins[i]))
      throw shape_error(std::string(op) + ": out of shape " + out.shp.str() + " overlaps input " + std::to_string(i) +
                        " of shape " + ins[i].shp.str() + " (the result cannot be computed in place)");
}

/// Throws shape_error unless `out` can receive a result of shape `s` computed
/// from `ins` by an operation that cannot work in place (matmul, transpose):
/// exact shape, no self-overlap, no overlap with any input.
template <std::size_t N>
void check_exact_out(const char* op, const operand_layout& out, const shape& s,
                     const std::array<operand_layout, N>& ins) {
  if (out.shp != s)
    throw shape_error(std::string(op) + ": out has shape " + out.shp.str() + " but the result has shape " + s.str());
  check_out_apart(op, out, ins);
}

}  // namespace ufunc::detail
