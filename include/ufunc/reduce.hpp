// ufunc::reduce and ufunc::map_reduce: reductions of whole arrays or of any set
// of axes, with a fused elementwise map, and the conveniences sum/prod/min/max/
// mean/argmin/argmax. Also the ufunc methods reduce/accumulate/outer.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "array.hpp"
#include "array_view.hpp"
#include "axis.hpp"
#include "config.hpp"
#include "detail/reduce.hpp"
#include "detail/scan.hpp"
#include "error.hpp"
#include "ops.hpp"
#include "shape.hpp"
#include "stream.hpp"
#include "vectorize.hpp"

namespace ufunc {

namespace detail {

struct identity_map {
  template <class T>
  UFUNC_HD constexpr T operator()(const T& v) const { return v; }
};

/// How the starting value is chosen: the op's identity when it has one, none at
/// all (NumPy's np.min: an empty input is an error), or the user's value.
struct default_init {};
struct no_init {};
template <class T>
struct given_init {
  T value;
};

/// What a reducer computes from the mapped elements.
struct plain_kind {};
struct mean_kind {};
template <bool Max>
struct arg_kind {};

template <class Kind, class AccOverride, class Op, class M>
struct kind_traits {  // plain: accumulate op's result type (or the override)
  using acc = std::conditional_t<std::is_void_v<AccOverride>, std::decay_t<std::invoke_result_t<const Op&, M, M>>,
                                 AccOverride>;
  using lift = lift_cast<acc>;
  using op = Op;
  using fin = finish_same;
  static op make_op(const Op& o) { return o; }
  static fin make_fin(index_t) { return {}; }
};
template <class AccOverride, class Op, class M>
struct kind_traits<mean_kind, AccOverride, Op, M> {
  // Floating input accumulates in its own type (at least float); integers in double.
  using acc = std::conditional_t<!std::is_void_v<AccOverride>, AccOverride,
                                 std::conditional_t<std::is_floating_point_v<M>,
                                                    std::conditional_t<(sizeof(M) < sizeof(float)), float, M>, double>>;
  using lift = lift_cast<acc>;
  using op = plus;
  using fin = finish_mean<acc>;
  static op make_op(const Op&) { return {}; }
  static fin make_fin(index_t r) { return {r}; }
};
template <bool Max, class AccOverride, class Op, class M>
struct kind_traits<arg_kind<Max>, AccOverride, Op, M> {
  using acc = arg_acc<M>;
  using lift = lift_arg<M>;
  using op = arg_pick<M, Max>;
  using fin = finish_index;
  static op make_op(const Op&) { return {}; }
  static fin make_fin(index_t) { return {}; }
};

template <class A>
struct is_axis_arg : std::bool_constant<std::is_same_v<A, axis> || std::is_same_v<A, axes> ||
                                        std::is_same_v<A, keepdims_t>> {};
template <class A>
inline constexpr bool is_reduce_control_v = is_control_v<A> || is_axis_arg<bare_t<A>>::value;

template <class... A>
constexpr std::size_t leading_reduce_inputs() {
  constexpr bool ctl[] = {is_reduce_control_v<A>..., true};
  std::size_t i = 0;
  while (!ctl[i]) ++i;
  return i;
}

/// The target of a call: that of its array arguments (all must agree), or the
/// build's device when there are none (std::vector inputs are then copied there).
template <class... A>
struct common_target {
  template <class X>
  using tg = typename arg_traits<bare_t<X>>::target_type;
  template <class X>
  static constexpr bool is_arr = arg_traits<bare_t<X>>::is_array;
  // the first array's target, found by a fold over the arguments
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
};

template <class T>
struct cast_to {
  template <class U>
  UFUNC_HD T operator()(const U& v) const { return static_cast<T>(v); }
};

inline std::string axes_str(const std::vector<int>* ax) {
  if (!ax) return "all";
  std::string s = "(";
  for (std::size_t i = 0; i < ax->size(); ++i) s += (i ? "," : "") + std::to_string((*ax)[i]);
  return s + (ax->size() == 1 ? ",)" : ")");
}

template <class Target, class F>
struct ufunc_methods;

}  // namespace detail

/// A reduction: made by `reduce`, `map_reduce` or one of the conveniences
/// (`sum`, `prod`, `min`, `max`, `mean`, `argmin`, `argmax`).
///
/// Call it with one or more inputs (arrays, views, scalars or std::vectors, which
/// broadcast like `vectorize`'s and feed the map), then optionally
/// `ufunc::axis(k)` / `ufunc::axes{...}`, `ufunc::keepdims`, `ufunc::out(r)` and a
/// stream, in any order after the inputs:
/// - no axis, no out: the whole reduction is returned as a host value (this
///   waits for the stream);
/// - with an axis or keepdims: a new array of the remaining shape, enqueued on the
///   stream (no wait);
/// - with `out(r)`: written into r (shape of the result, or any one-element array
///   for a whole reduction), no wait; r must not overlap the inputs.
/// The map is fused: one pass over memory, no temporary array. The op must be
/// associative and commutative. Without an identity (a custom op with no
/// `init`), an empty reduction throws `value_error`. The target is that of the
/// array inputs (all in one target's memory).
template <class AccOverride, class Map, class Op, class Init, class Kind>
class reducer {
 public:
  constexpr reducer(Map m, Op op, Init init, const char* name) : map_(m), op_(op), init_(init), name_(name) {}

  template <class... Args>
  auto operator()(Args&&... args) const {
    constexpr std::size_t nin = detail::leading_reduce_inputs<Args...>();
    static_assert(nin >= 1, "ufunc: a reduction needs at least one input");
    static_assert((static_cast<std::size_t>(detail::is_reduce_control_v<Args>) + ...) == sizeof...(Args) - nin,
                  "ufunc: inputs come first, then axis/axes/keepdims, out(...) and/or a stream");
    call_options o;
    ((void)take(o, args), ...);
    auto all_outs = std::tuple_cat(detail::outs_of(args)...);
    static_assert(std::tuple_size_v<decltype(all_outs)> <= 1, "ufunc: a reduction has one output");
    auto inputs = std::forward_as_tuple(args...);
    // Known from the argument types: no axis, keepdims or out -> a host value.
    constexpr bool scalar = !(detail::is_axis_arg<detail::bare_t<Args>>::value || ...) &&
                            std::tuple_size_v<decltype(all_outs)> == 0;
    return call<scalar>(std::make_index_sequence<nin>{}, inputs, o, all_outs);
  }

  const char* name() const noexcept { return name_; }

 private:
  struct call_options {
    bool has_axes = false, keep = false;
    std::vector<int> ax;
    stream_ref s;
  };
  template <class A>
  static void take(call_options& o, const A& a) {
    using B = detail::bare_t<A>;
    if constexpr (std::is_same_v<B, axis>) {
      if (o.has_axes) throw shape_error("ufunc: give the axes once (axis or axes)");
      o.has_axes = true;
      o.ax = {a.value};
    } else if constexpr (std::is_same_v<B, axes>) {
      if (o.has_axes) throw shape_error("ufunc: give the axes once (axis or axes)");
      o.has_axes = true;
      o.ax = a.list;
    } else if constexpr (std::is_same_v<B, keepdims_t>) {
      o.keep = true;
    } else if constexpr (detail::is_stream_v<B>) {
      o.s = stream_ref(a);
    }
  }

  template <bool Scalar, std::size_t... I, class In, class Outs>
  auto call(std::index_sequence<I...>, In& in, const call_options& o, const Outs& outs) const {
    using namespace detail;
    using ct = common_target<std::tuple_element_t<I, In>...>;
    using Target = typename ct::type;
    static_assert(ct::consistent, "ufunc: the array inputs of a reduction live in different targets' memory");
    constexpr bool any_vector = (arg_traits<bare_t<std::tuple_element_t<I, In>>>::is_vector || ...);
    if constexpr (any_vector && !std::is_same_v<Target, target::host>) {
      // Host containers: copy them to the device and reduce there.
      auto staged = std::make_tuple(stage<Target>(std::get<I>(in), o.s)...);
      return std::apply([&](const auto&... a) { return run<Scalar, Target>(std::forward_as_tuple(a...), o, outs); }, staged);
    } else {
      return run<Scalar, Target>(std::forward_as_tuple(std::get<I>(in)...), o, outs);
    }
  }

  template <bool Scalar, class Target, class... A, class Outs>
  auto run(const std::tuple<A...>& in, const call_options& o, const Outs& outs) const {
    using namespace detail;
    constexpr std::size_t nin = sizeof...(A);
    static_assert((arg_traits<bare_t<A>>::is_array || ...) || (arg_traits<bare_t<A>>::is_vector || ...),
                  "ufunc: a reduction needs at least one array input");
    using M = std::decay_t<std::invoke_result_t<const Map&, typename arg_traits<bare_t<A>>::value_type...>>;
    using kt = kind_traits<Kind, AccOverride, Op, M>;
    using Acc = typename kt::acc;
    using UsedOp = typename kt::op;
    using Fin = typename kt::fin;
    using Res = std::decay_t<std::invoke_result_t<const Fin&, const Acc&>>;
    static_assert(std::is_convertible_v<std::invoke_result_t<const UsedOp&, const Acc&, const Acc&>, Acc>,
                  "ufunc: the reduction op must accept two accumulator values and return one");
    constexpr bool has_init = !std::is_same_v<Init, no_init> &&
                              (!std::is_same_v<Init, default_init> || has_identity<UsedOp, Acc>::value);
    Acc init{};
    if constexpr (has_init) {
      if constexpr (std::is_same_v<Init, default_init>)
        init = UsedOp::template identity<Acc>();
      else
        init = static_cast<Acc>(init_.value);
    }
    const acc_op<Acc, UsedOp> op{kt::make_op(op_)};

    // Shapes: broadcast the inputs, pick the axes, split kept/reduced dims.
    std::array<operand_layout, nin> lay{};
    std::apply([&](const auto&... a) {
      std::size_t k = 0;
      ((lay[k++] = layout_of(a)), ...);
    }, in);
    shape bshape;
    for (const auto& l : lay)
      if (l.is_array && !broadcast_into(bshape, l.shp)) {
        std::vector<shape> shapes;
        for (const auto& x : lay)
          if (x.is_array) shapes.push_back(x.shp);
        (void)broadcast_shapes(shapes, name_);
      }
    const std::vector<int>* axp = o.has_axes ? &o.ax : nullptr;
    if constexpr (!std::is_same_v<Kind, plain_kind> && !std::is_same_v<Kind, mean_kind>)
      if (axp && axp->size() != 1)
        throw shape_error(std::string(name_) + ": give one axis (or none), not " + axes_str(axp));
    const auto mask = axis_mask(bshape, axp, name_);
    const auto g = make_geometry<nin>(bshape, mask, o.keep, lay);
    if (g.R == 0 && g.K > 0 && !has_init)
      throw value_error(std::string(name_) + ": zero-size reduction of shape " + bshape.str() + " over axes " +
                        axes_str(axp) + ", and the operation has no identity (give an initial value)");
    const Fin fin = kt::make_fin(g.R);

    auto ins = std::apply([](const auto&... a) { return cuda::std::make_tuple(operand_of(a)...); }, in);
    // One owning array: contiguous by type, so no engine needs its strided path.
    constexpr bool dense = nin == 1 && (arg_traits<bare_t<A>>::is_dense && ...);
    using Src = map_source<Acc, typename kt::lift, Map, decltype(ins), static_cast<int>(nin), dense>;
    const Src src{typename kt::lift{}, map_, ins, make_plan<static_cast<int>(nin), std::uint64_t>(g.kept),
                  make_plan<static_cast<int>(nin), std::uint64_t>(g.red)};
    using backend = reduce_backend<Target>;

    auto fill_value = [&] { return static_cast<Res>(fin(init)); };
    // Generic, so that a call returning a host scalar does not instantiate the
    // many-output engines (their kernels are most of a call site's compile time).
    auto compute_into = [&](auto& r) {
      if (g.K == 0) return;
      if (g.R == 0) {
        r = ufunc::full<Res, Target>(g.result, fill_value(), o.s);
        return;
      }
      backend::template run<has_init>(src, g, op, init, fin, r.data(), o.s);
    };

    if constexpr (std::tuple_size_v<Outs> == 1) {
      auto ov = std::get<0>(outs);
      const auto ol = layout_of(ov);
      const bool one = g.result.count() == 1 && ol.shp.count() == 1 && !o.keep;
      if (!(ol.shp == g.result || one))
        throw shape_error(std::string(name_) + ": out has shape " + ol.shp.str() + " but reducing shape " +
                          bshape.str() + " over axes " + axes_str(axp) + " gives " + g.result.str());
      check_overlap(name_, std::array<operand_layout, 1>{ol}, lay);
      using OutT = typename decltype(ov)::value_type;
      if (std::is_same_v<OutT, Res> && ol.shp.count() > 0 && ov.is_contiguous() && g.R > 0) {
        backend::template run<has_init>(src, g, op, init, fin, reinterpret_cast<Res*>(ov.data()), o.s);
      } else if (g.K > 0) {
        array<Res, Target> tmp(g.result, o.s);
        compute_into(tmp);
        auto flat_tmp = make_view<Target>(static_cast<const Res*>(tmp.data()), ol.shp);
        vectorize<Target>(cast_to<OutT>{}, name_)(flat_tmp, out(ov), o.s);
      }
      return ov;
    } else if constexpr (Scalar) {
      if (g.R == 0) return fill_value();
      return backend::template to_host<Res, has_init>(src, g, op, init, fin, o.s);
    } else {
      array<Res, Target> r(g.result, o.s);
      compute_into(r);
      return r;
    }
  }

  template <class T, class F>
  friend struct detail::ufunc_methods;

  Map map_;
  Op op_;
  Init init_;
  const char* name_;
};

/// A reduction with the binary operation `op` (a `UFUNC_HD` lambda or function
/// object; associative and commutative). A built-in op (`ufunc::plus`, ...)
/// brings its identity; a custom op has none: its result is the reduction of the
/// elements themselves, and an empty input throws `value_error`. The accumulator
/// type is op's result type, or `Acc` when given (`reduce<double>(plus{})`
/// accumulates float input in double).
template <class Acc = void, class Op>
constexpr auto reduce(Op op) {
  return reducer<Acc, detail::identity_map, Op, detail::default_init, detail::plain_kind>(
      detail::identity_map{}, op, detail::default_init{}, "reduce");
}
/// As above, starting from `init` (the result of an empty reduction; combined
/// once with each result otherwise, as NumPy's `initial`).
template <class Acc = void, class Op, class I>
constexpr auto reduce(Op op, I init) {
  return reducer<Acc, detail::identity_map, Op, detail::given_init<I>, detail::plain_kind>(
      detail::identity_map{}, op, detail::given_init<I>{init}, "reduce");
}

/// A fused map-reduce: `map` (taking one value per input; inputs broadcast like
/// `vectorize`'s) is applied to each element and the results are reduced with
/// `op`, in one pass with no temporary array. Identity and accumulator as for
/// `reduce`.
template <class Acc = void, class Map, class Op>
constexpr auto map_reduce(Map map, Op op) {
  return reducer<Acc, Map, Op, detail::default_init, detail::plain_kind>(map, op, detail::default_init{},
                                                                         "map_reduce");
}
template <class Acc = void, class Map, class Op, class I>
constexpr auto map_reduce(Map map, Op op, I init) {
  return reducer<Acc, Map, Op, detail::given_init<I>, detail::plain_kind>(map, op, detail::given_init<I>{init},
                                                                          "map_reduce");
}

/// Sum of the elements (0 for none).
inline constexpr reducer<void, detail::identity_map, plus, detail::default_init, detail::plain_kind> sum{
    {}, {}, {}, "sum"};
/// Product of the elements (1 for none).
inline constexpr reducer<void, detail::identity_map, multiplies, detail::default_init, detail::plain_kind> prod{
    {}, {}, {}, "prod"};
/// Smallest element, NaN if any is NaN; an empty input throws value_error (as np.min).
inline constexpr reducer<void, detail::identity_map, minimum, detail::no_init, detail::plain_kind> min{
    {}, {}, {}, "min"};
/// Largest element, NaN if any is NaN; an empty input throws value_error (as np.max).
inline constexpr reducer<void, detail::identity_map, maximum, detail::no_init, detail::plain_kind> max{
    {}, {}, {}, "max"};
/// Arithmetic mean: float input accumulates in float (tree order) and returns
/// float, double in double, integers in double; NaN for an empty input.
inline constexpr reducer<void, detail::identity_map, plus, detail::default_init, detail::mean_kind> mean{
    {}, {}, {}, "mean"};
/// Index of the smallest element: the flat (row-major) index for a whole array,
/// or an index_t array of positions along `axis(k)`. First NaN wins; ties go to
/// the lowest index; an empty input throws value_error. Give at most one axis.
inline constexpr reducer<void, detail::identity_map, plus, detail::no_init, detail::arg_kind<false>> argmin{
    {}, {}, {}, "argmin"};
/// Index of the largest element; as argmin.
inline constexpr reducer<void, detail::identity_map, plus, detail::no_init, detail::arg_kind<true>> argmax{
    {}, {}, {}, "argmax"};

namespace detail {

/// The ufunc methods of a binary vectorized function (`f.reduce`, `f.accumulate`,
/// `f.outer`), as NumPy's.
template <class Target, class F>
struct ufunc_methods {
  template <class X, class... Rest>
  static auto reduce(const vectorized<Target, F>& f, const X& x, Rest&&... rest) {
    static_assert(std::is_same_v<typename arg_traits<bare_t<X>>::target_type, Target>,
                  "ufunc: reduce's input must live in the ufunc's target memory");
    const reducer<void, identity_map, F, no_init, plain_kind> r(identity_map{}, f.function(), no_init{}, f.name());
    constexpr bool has_axis = (is_axis_arg<bare_t<Rest>>::value || ...);
    if constexpr (has_axis)
      return r(x, std::forward<Rest>(rest)...);
    else
      return r(x, axis(0), std::forward<Rest>(rest)...);  // NumPy's default axis
  }

  template <class X>
  static auto accumulate(const vectorized<Target, F>& f, const X& x, int ax, stream_ref s) {
    using B = arg_traits<bare_t<X>>;
    static_assert(B::is_array && std::is_same_v<typename B::target_type, Target>,
                  "ufunc: accumulate takes an array or view in the ufunc's target memory");
    using T = typename B::value_type;
    using Acc = std::decay_t<std::invoke_result_t<const F&, T, T>>;
    const auto l = layout_of(x);
    if (l.shp.size() == 0) throw shape_error(std::string(f.name()) + ".accumulate: a 0-d array has no axis");
    const std::vector<int> one{ax};
    const auto mask = axis_mask(l.shp, &one, f.name());
    int a = 0;
    while (!mask[static_cast<std::size_t>(a)]) ++a;
    array<Acc, Target> r(l.shp, s);
    scan_axis<Target, Acc, F, T>(acc_op<Acc, F>{f.function()}, l, a, r.data(), s);
    return r;
  }

  template <class X, class Y, class... Rest>
  static auto outer(const vectorized<Target, F>& f, const X& x, const Y& y, Rest&&... rest) {
    auto spread = [&](const auto& a, bool first, int other_rank) {
      const auto v = a.view();
      std::vector<index_t> dims, st;
      if (!first)
        for (int d = 0; d < other_rank; ++d) dims.push_back(1), st.push_back(0);
      for (int d = 0; d < v.ndim(); ++d) dims.push_back(v.shape()[d]), st.push_back(v.stride(d));
      if (first)
        for (int d = 0; d < other_rank; ++d) dims.push_back(1), st.push_back(0);
      return array_view<const typename decltype(v)::value_type, Target>(v.data(), shape(dims), st);
    };
    const auto xv = x.view();
    const auto yv = y.view();
    if (xv.ndim() + yv.ndim() > shape::max_rank)
      throw shape_error(std::string(f.name()) + ".outer: result rank " + std::to_string(xv.ndim() + yv.ndim()) +
                        " (shapes " + xv.shape().str() + " and " + yv.shape().str() + ") exceeds " +
                        std::to_string(shape::max_rank));
    return f(spread(x, true, yv.ndim()), spread(y, false, xv.ndim()), std::forward<Rest>(rest)...);
  }
};

}  // namespace detail

}  // namespace ufunc
