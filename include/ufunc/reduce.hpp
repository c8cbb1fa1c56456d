// ufunc::reduce and ufunc::map_reduce: reductions of whole arrays or of any set
// of axes, with a fused elementwise map, and the conveniences sum/prod/min/max/
// mean/argmin/argmax.
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
#include "detail/call.hpp"
#include "detail/call_route.hpp"
#include "detail/core_dims.hpp"
#include "detail/elementwise.hpp"
#include "detail/reduce.hpp"
#include "detail/stream.hpp"
#include "detail/trace.hpp"
#include "error.hpp"
#include "expression.hpp"
#include "ops.hpp"
#include "shape.hpp"
#include "stream.hpp"
#include "full.hpp"
#include "out.hpp"
#include "detail/reduce_fold.hpp"  // the folds of partial results (detail::)

namespace ufunc {

namespace detail {
template <class Target, class F>
struct ufunc_methods;  // ufunc_methods.hpp
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
/// - with `out(r)`: written into r (exactly the result's shape, as NumPy; a whole
///   reduction, without axes or keepdims, also takes any one-element array), no wait; r must not overlap the inputs; its element
///   type follows NumPy's same_kind rule unless `ufunc::unsafe_cast` is given
///   (else type_error, see `ufunc::unsafe_cast`).
/// The map is fused: one pass over memory, no temporary array. The op must be
/// associative and commutative. On the host target an exception thrown by the
/// map or the op reaches the caller and leaves `out` as it was (unless both are
/// `noexcept`, the results go to a temporary first). Without an identity (a custom op with no
/// `init`, min, max, argmin, argmax), a reduction over an empty range throws
/// `value_error`, even when the result is empty too, as NumPy. `axis(0)` or
/// `axis(-1)` of a 0-d input reduces nothing (as NumPy). The target is that of the
/// array inputs (all in one target's memory).
template <class AccOverride, class Map, class Op, class Init, class Kind>
class reducer {
 public:
  constexpr reducer(Map m, Op op, Init init, const char* name) : map_(m), op_(op), init_(init), name_(name) {}

  template <class... Args>
  decltype(auto) operator()(Args&&... args) const {  // (a sharded out is returned by reference)
    using parsed = detail::call_args<detail::c_out | detail::c_stream | detail::c_axes | detail::c_keepdims |
                                         detail::c_unsafe_cast | detail::c_defer,
                                     detail::bare_t<Args>...>;
    static_assert(parsed::nin >= 1, "ufunc reduction: give at least one input");
    UFUNC_CHECK_CALL(parsed, "ufunc reduction",
                     "ufunc::axis or ufunc::axes, ufunc::keepdims, ufunc::out(...), ufunc::unsafe_cast and a stream");
    static_assert(std::tuple_size_v<decltype(detail::out_views(args...))> <= 1,
                  "ufunc reduction: out(...) takes one array (a reduction has one result)");
    return detail::call_route<parsed::nin, detail::inputs_checked_later>(route_hooks{*this}, std::forward<Args>(args)...);
  }

  const char* name() const noexcept { return name_; }
  /// The map, the op and the initial value (the sharded reductions make the
  /// reducer of their later shards from them, without the initial value).
  const Map& map_fn() const noexcept { return map_; }
  const Op& op_fn() const noexcept { return op_; }
  const Init& init_value() const noexcept { return init_; }

 private:
  template <class, class, class, class, class>
  friend class reducer;

  /// The steps of detail::call_route (call_route.hpp) for a reduction.
  struct route_hooks {
    const reducer& self;
    template <class... A>
    auto again(A&&... a) const {
      return self(std::forward<A>(a)...);
    }
    const char* name() const { return self.name_; }
    template <class... A>
    decltype(auto) shards(A&&... a) const {  // each shard reduced on its device, partials combined (sharded.hpp)
      return detail::sharded_ops<detail::bare_t<A>...>::reduce(self, std::forward<A>(a)...);
    }
    const Map& function() const { return self.map_; }
    template <class G>
    auto rebind(G g) const {  // vec<D> inputs: the map regrouping their components
      return reducer<AccOverride, G, Op, Init, Kind>(g, self.op_, self.init_, self.name_);
    }
    template <class... A>
    auto fused(const detail::controls& o, A&&... a) const {  // the map and the expressions' trees: one map over their leaves, one pass
      return self.template fused_call<scalar_v<A...>>(std::make_index_sequence<args_of<A...>::nin>{},
                                                      std::forward_as_tuple(std::forward<A>(a)...), o,
                                                      detail::out_views(a...));
    }
    template <class... A>
    auto plain(const detail::controls& o, A&&... a) const {
      auto inputs = std::forward_as_tuple(std::forward<A>(a)...);
      return self.template call<scalar_v<A...>, false>(std::make_index_sequence<args_of<A...>::nin>{}, inputs, o,
                                                        detail::out_views(a...));
    }
  };
  template <class... A>
  using args_of = detail::call_args<detail::c_out | detail::c_stream | detail::c_axes | detail::c_keepdims |
                                        detail::c_unsafe_cast | detail::c_defer,
                                    detail::bare_t<A>...>;
  /// Known from the argument types: no axis, keepdims or out -> a host value.
  template <class... A>
  static constexpr bool scalar_v =
      !args_of<A...>::has(detail::c_axes) && !args_of<A...>::has(detail::c_keepdims) && !args_of<A...>::has(detail::c_out);

  /// The map and the expressions among the inputs fused into one map over their
  /// leaves, reduced with the controls the call parsed (`o`, `outs`): no second
  /// parse of the trailing arguments.
  template <bool Scalar, std::size_t... I, class In, class Outs>
  auto fused_call(std::index_sequence<I...>, In&& in, const detail::controls& o, const Outs& outs) const {
    auto e = detail::make_node<void>(map_, name_, std::get<I>(std::move(in))...);
    using G = detail::fused<typename decltype(e)::function_type>;
    const reducer<AccOverride, G, Op, Init, Kind> r(G{e.function()}, op_, init_, name_);
    auto leaves = e.leaf_args();
    // A device expression may have host-memory leaves (expression.hpp): they stream.
    using E = decltype(e);
    constexpr bool host_streams = detail::device_memory_target<typename E::target_type> &&
                                  detail::has_host_leaf<typename E::leaves_type>::value;
    auto result = r.template call<Scalar, host_streams>(std::make_index_sequence<std::tuple_size_v<decltype(leaves)>>{},
                                                        leaves, o, outs);
    detail::order_frees_after(e, o.stream);
    return result;
  }

  /// HostStreams: host arrays and views among the inputs are a device
  /// expression's leaves, streamed as pinned_arrays are (else they make the
  /// reduction run on the host).
  template <bool Scalar, bool HostStreams, std::size_t... I, class In, class Outs>
  auto call(std::index_sequence<I...>, In& in, const detail::controls& o, const Outs& outs) const {
    using namespace detail;
    using ct = common_target<std::tuple_element_t<I, In>...>;
    using Target = typename ct::type;
    // std::vector and pinned_array inputs of a CUDA build reduce on the device:
    // every kind (reduce, map_reduce, sum, prod, min, max, mean, argmin,
    // argmax), with or without out, streams them in chunks (streamed() below).
    constexpr bool to_device =
        cuda_backend && ((arg_traits<bare_t<std::tuple_element_t<I, In>>>::is_vector ||
                          is_pinned<bare_t<std::tuple_element_t<I, In>>>::value ||
                          (HostStreams && host_array_arg<std::tuple_element_t<I, In>>())) ||
                         ...);
    constexpr bool host_arrays = !HostStreams && (host_array_arg<std::tuple_element_t<I, In>>() || ...);
    static_assert(ct::consistent || (to_device && !host_arrays),
                  "ufunc reduction: the array inputs live in different targets' memory");
    if constexpr (to_device && !host_arrays) {
      return streamed<Scalar>(std::index_sequence<I...>{}, in, o, outs);
    } else if constexpr (ct::any_vector && !std::is_same_v<Target, target::host>) {
      // Host containers: copy them to the device and reduce there.
      auto staged = std::make_tuple(stage<Target>(std::get<I>(in), o.stream)...);
      return std::apply([&](const auto&... a) { return run<Scalar, Target>(std::forward_as_tuple(a...), o, outs); }, staged);
    } else {
      return run<Scalar, Target>(std::forward_as_tuple(std::get<I>(in)...), o, outs);
    }
  }

  /// A host-target array or view (not pinned, not a vector): reduced on the host.
  template <class A>
  static constexpr bool host_array_arg() {
    using B = detail::bare_t<A>;
    using tr = detail::arg_traits<B>;
    if constexpr (tr::is_array && !detail::is_pinned<B>::value)
      return std::is_same_v<typename tr::target_type, target::host> && cuda_backend;
    else
      return false;
  }

  /// argmin/argmax take one axis or none (checked before any work; a streamed
  /// chunk's arg_partial_kind is not checked: its axes are the planner's).
  void check_arg_axes(const std::vector<int>* axp) const {
    if constexpr (detail::is_arg_kind<Kind>::value)
      if (axp && axp->size() != 1)
        throw shape_error(std::string(name_) + ": give one axis (or none), not " + detail::axes_str(axp));
  }

  /// Checks out(...) of a reduction to `result` before any work, as NumPy: its
  /// shape exactly (a whole reduction, without axes or keepdims, also takes any
  /// one-element out: a 0-d or a (1,) array alike), apart from the inputs, and
  /// Res -> OutT allowed by the casting rule.
  template <class Res, class OutT, std::size_t N>
  void check_out(const detail::operand_layout& ol, const shape& result, const shape& bshape, const std::vector<int>* axp,
                 const detail::controls& o, const std::array<detail::operand_layout, N>& lay) const {
    using namespace detail;
    const bool one = !axp && !o.keepdims && result.count() == 1 && ol.shp.count() == 1;
    if (!(ol.shp == result || one))
      throw shape_error(std::string(name_) + ": out has shape " + ol.shp.str() + " but reducing shape " +
                        bshape.str() + " over axes " + axes_str(axp) + " gives " + result.str());
    check_out_apart(name_, ol, lay);
    check_out_cast<Res, OutT>(name_, o.unsafe_cast);
  }

  /// A reduction (any kind) whose inputs include host memory, in chunks planned by
  /// detail/stream_plan.hpp under the device memory limit and run by the CUDA
  /// pipeline: chunks along kept dims each compute their rows of the result;
  /// chunks along reduced dims each compute a partial result of the whole
  /// result shape, folded into it in chunk order on the device (result =
  /// op(op(op(p0, p1), p2), ...)): a float sum is then, per result element, the
  /// engine's tree sum within each chunk and a left-to-right sum over the C
  /// chunks, so its error is at most about (log2(elements per chunk) + C) x eps x
  /// sum|x|. An explicit initial value is applied once: the first chunk reduces
  /// with it, later partials without. A mean streams the sum of its accumulator
  /// type and divides once at the end. argmin/argmax stream (value, index)
  /// partials (arg_partial_kind): chunks along kept dims compute their rows
  /// (indices along the reduced axis, which no chunk cuts); chunks along reduced
  /// dims compute partials whose indices are shifted by the chunk's offset in
  /// the flattened (C-order) reduced index space before the fold (arg_fold_fn):
  /// the chunked dims are the leading reduced dims (any kept dim among them has
  /// extent 1), so that offset is first_row x (the product of the reduced
  /// extents after them; stream_plan::reduced_offset), for one axis or a whole
  /// reduction alike. arg_pick picks the least of a total order (the first NaN,
  /// else the value, then the index), so the fold picks exactly the in-memory
  /// result; the index is taken once at the end. With out(...), the result is
  /// streamed into a device temporary of the accumulator type, then written into out as
  /// the in-memory path writes its temporary (same checks, made before any work;
  /// out is written only after every chunk succeeded). Empty reductions copy
  /// their inputs whole instead (as before streaming).
  template <bool Scalar, std::size_t... I, class In, class Outs>
  auto streamed(std::index_sequence<I...>, In& in, const detail::controls& o, const Outs& outs) const {
    using namespace detail;
    using Target = target::device;
    auto fallback = [&] {
      auto staged = std::make_tuple(stage<Target>(std::get<I>(in), o.stream)...);
      return std::apply([&](const auto&... a) { return run<Scalar, Target>(std::forward_as_tuple(a...), o, outs); },
                        staged);
    };
    if constexpr (!target_traits<Target>::is_device) {
      return fallback();
    } else {
      // Device-only from here: the pipeline and events of the device target,
      // named through a type that depends on In (host builds compile none of it).
      using DT = typename dependent_target<Target, In>::type;
      using pl = pipeline<DT>;
      constexpr std::size_t nin = sizeof...(I);
      using M = std::decay_t<std::invoke_result_t<const Map&, typename arg_traits<bare_t<std::tuple_element_t<I, In>>>::value_type...>>;
      using kt = kind_traits<Kind, AccOverride, Op, M>;
      using Acc = typename kt::acc;
      using UsedOp = typename kt::op;
      using Res = std::decay_t<std::invoke_result_t<const typename kt::fin&, const Acc&>>;
      const acc_op<Acc, UsedOp> op{kt::make_op(op_)};
      const std::array<operand_layout, nin> lay{layout_of(std::get<I>(in))...};
      const shape bshape = broadcast_inputs(name_, lay);
      const std::vector<int>* axp = o.axes_or_null();
      constexpr bool is_arg = is_arg_kind<Kind>::value;
      check_arg_axes(axp);  // as run() does, before any work
      const auto mask = axis_mask(bshape, axp, name_, o.single_axis);
      const auto g = make_geometry<nin>(bshape, mask, o.keepdims, lay);
      if (g.R == 0 || g.K == 0) return fallback();
      if constexpr (std::tuple_size_v<Outs> == 1) {
        using OutT = typename std::decay_t<std::tuple_element_t<0, Outs>>::value_type;
        check_out<Res, OutT>(layout_of(std::get<0>(outs)), g.result, bshape, axp, o, lay);
      }
      // Per chunk: the plain reduction of the accumulator type (a mean's sum), or
      // argmin/argmax's (value, index) pairs; the first chunk applies the initial
      // value, later partials must not repeat it.
      using FirstInit = std::conditional_t<std::is_same_v<Kind, mean_kind>, default_init, Init>;
      using ChunkKind = typename chunk_kind<Kind>::type;
      const reducer<Acc, Map, UsedOp, FirstInit, ChunkKind> first(map_, kt::make_op(op_), FirstInit{init_}, name_);
      const reducer<Acc, Map, UsedOp, no_init, ChunkKind> rest(map_, kt::make_op(op_), no_init{}, name_);
      std::vector<index_t> kd;
      std::vector<bool> red;
      for (int d = 0; d < bshape.size(); ++d) {
        kd.push_back(mask[static_cast<std::size_t>(d)] ? 1 : bshape[d]);
        red.push_back(mask[static_cast<std::size_t>(d)]);
      }
      // The result lives on the device (a host value is copied out at the end).
      array<Acc, Target> r(g.result, o.stream);
      std::vector<stream_operand> sop{stream_operand_of(contiguous_layout(r.data(), sizeof(Acc), shape(kd)), false)};
      const std::array<bool, nin> host{(arg_traits<bare_t<std::tuple_element_t<I, In>>>::is_vector ||
                                        is_pinned<bare_t<std::tuple_element_t<I, In>>>::value ||
                                        host_array_arg<std::tuple_element_t<I, In>>())...};
      for (std::size_t i = 0; i < nin; ++i) sop.push_back(stream_operand_of(lay[i], host[i]));
      const std::size_t part_bytes = static_cast<std::size_t>(g.K) * sizeof(Acc);
      const stream_plan p = plan_stream(name_, bshape, sop, &red, device_limit_now(), pl::buffers,
                                        pl::chunk_bytes(sop), part_bytes);
      std::vector<typename pl::io> io(sop.size());
      std::vector<const void*> base(sop.size());
      io[0].is_out = true;
      io[0].host_out = r.data();
      io[0].elem = sizeof(Acc);
      base[0] = r.data();
      for (std::size_t i = 0; i < nin; ++i) {
        io[1 + i].host = lay[i].data;
        io[1 + i].elem = lay[i].elem_size;
        base[1 + i] = lay[i].data;
      }
      std::vector<array<Acc, Target>> parts;  // a partial result per pipeline slot
      if (p.partial)
        for (int b = 0; b < p.buffers; ++b) parts.emplace_back(g.result, o.stream);
      // A float or double sum keeps the fold's rounding errors (TwoSum) in `comp`
      // and adds them once at the end: each chunk's partial is accurate to a
      // rounding or two (wide_sum.hpp), and the fold over any number of chunks
      // then adds about one more.
      constexpr bool compensate = std::is_same_v<UsedOp, plus> && std::is_floating_point_v<Acc> && !is_arg;
      std::vector<array<Acc, Target>> comp;  // zero or one
      if constexpr (compensate)
        if (p.partial) comp.push_back(ufunc::full<Acc, Target>(g.result, Acc(0), o.stream));
      // The fold of partials runs on the chunks' streams, one after the other.
      using rt = runtime<DT>;
      struct event_holder {
        decltype(rt::event_create(false)) e = nullptr;
        ~event_holder() { rt::event_release(e); }
      } folded;
      folded.e = rt::event_create(false);
      std::vector<int> cax;  // the reduced axes of a chunk (chunk dim 0 is the chunked axis)
      if (p.partial) cax.push_back(0);
      for (int d = p.split; d < bshape.size(); ++d)
        if (mask[static_cast<std::size_t>(d)]) cax.push_back(1 + d - p.split);
      const shape rshape = g.result;
      controls chunk_ctl;  // a chunk's controls: its reduced axes, kept as extent-1 dims, into out
      chunk_ctl.has_axes = true;
      chunk_ctl.axes_list = cax;
      chunk_ctl.keepdims = true;
      pl::run(p, sop, io, base, o.stream, [&](index_t c, const std::vector<void*>& ptr, stream_ref st) {
        auto view_of = [&](std::size_t k, auto* data) {
          const chunk_operand co = chunk_of(p, sop[k], k, c);
          using T = std::remove_pointer_t<decltype(data)>;
          return array_view<T, Target>(data, co.shp, std::vector<index_t>(co.strides.begin(), co.strides.begin() + co.shp.size()));
        };
        auto arg = [&](auto idx) {
          constexpr std::size_t i = decltype(idx)::value;
          using A = bare_t<std::tuple_element_t<i, In>>;
          using tr = arg_traits<A>;
          if constexpr (is_computed_arg_v<A>) {  // no memory: the same draws, from the chunk's first element
            const chunk_operand co = chunk_of(p, sop[1 + i], 1 + i, c);
            return std::get<i>(in).part(co.host_begin, co.shp, co.strides);
          } else if constexpr (tr::is_array || tr::is_vector) {
            return view_of(1 + i, static_cast<const typename tr::value_type*>(ptr[1 + i]));
          } else {
            return std::get<i>(in);
          }
        };
        const bool fold = p.partial && c > 0;
        Acc* dst = fold ? parts[static_cast<std::size_t>(c % p.buffers)].data() : static_cast<Acc*>(ptr[0]);
        // The chunk's reduction runs the in-memory engine directly with controls
        // made here (its axes, keepdims, out and stream): nothing is parsed again.
        chunk_ctl.stream = st;
        const auto chunk_in = std::make_tuple(arg(std::integral_constant<std::size_t, I>{})...);
        const auto chunk_out = std::make_tuple(view_of(0, dst));
        if (fold)
          rest.template run<false, Target>(chunk_in, chunk_ctl, chunk_out);
        else
          first.template run<false, Target>(chunk_in, chunk_ctl, chunk_out);
        if (!p.partial) return;
        if (fold) {
          rt::stream_wait_event(st.get(), folded.e);
          const auto rl = contiguous_layout(r.data(), sizeof(Acc), rshape);
          auto fold_with = [&](const auto& fn) {
            run_contiguous<Target, Acc>(fn, rshape.count(), cuda::std::make_tuple(r.data()),
                                         cuda::std::make_tuple(in_ptr<Acc>{r.data()}, in_ptr<Acc>{dst}),
                                         std::array<operand_layout, 3>{rl, rl, contiguous_layout(dst, sizeof(Acc), rshape)},
                                         st);
          };
          if constexpr (is_arg) {
            fold_with(arg_fold_fn<acc_op<Acc, typename kt::op>>{op, p.reduced_offset(c)});
          } else {
            if constexpr (compensate) {  // before the fold changes r
              Acc* cp = comp[0].data();
              run_contiguous<Target, Acc>(two_sum_err_fn{}, rshape.count(), cuda::std::make_tuple(cp),
                                           cuda::std::make_tuple(in_ptr<Acc>{cp}, in_ptr<Acc>{r.data()}, in_ptr<Acc>{dst}),
                                           std::array<operand_layout, 4>{rl, rl, rl, contiguous_layout(dst, sizeof(Acc), rshape)},
                                           st);
            }
            fold_with(fold_fn<acc_op<Acc, typename kt::op>>{op});
          }
        }
        rt::event_record(folded.e, st.get());
      });
      if constexpr (compensate) {
        if (!comp.empty()) {
          const auto rl = contiguous_layout(r.data(), sizeof(Acc), rshape);
          run_contiguous<Target, Acc>(add_fn{}, rshape.count(), cuda::std::make_tuple(r.data()),
                                       cuda::std::make_tuple(in_ptr<Acc>{r.data()}, in_ptr<Acc>{comp[0].data()}),
                                       std::array<operand_layout, 3>{rl, rl, rl}, o.stream);
        }
      }
      // The finalisation (a mean's division by the reduced count, argmin/argmax's
      // index), once.
      auto finished = [&] {
        if constexpr (std::is_same_v<Kind, mean_kind> || is_arg) {
          array<Res, Target> f(rshape, o.stream);
          const auto rl = contiguous_layout(r.data(), sizeof(Acc), rshape);
          run_contiguous<Target, Res>(finish_fn<typename kt::fin>{kt::make_fin(g.R)}, rshape.count(),
                                       cuda::std::make_tuple(f.data()), cuda::std::make_tuple(in_ptr<Acc>{r.data()}),
                                       std::array<operand_layout, 2>{contiguous_layout(f.data(), sizeof(Res), rshape), rl},
                                       o.stream);
          return f;
        } else {
          return std::move(r);
        }
      };
      if constexpr (std::tuple_size_v<Outs> == 1) {
        // Written as the in-memory path writes its temporary into out.
        auto ov = std::get<0>(outs);
        const auto ol = layout_of(ov);
        using OutT = typename decltype(ov)::value_type;
        const auto f = finished();
        cast_layout<Target, OutT, Res>(ov.data(), ol, f.data(), contiguous_layout(f.data(), sizeof(Res), ol.shp), o.stream);
        return ov;
      } else if constexpr (Scalar) {
        return static_cast<Res>(finished().to_host(o.stream)[0]);
      } else {
        return finished();
      }
    }
  }

  template <bool Scalar, class Target, class... A, class Outs>
  auto run(const std::tuple<A...>& in, const detail::controls& o, const Outs& outs) const {
    using namespace detail;
    constexpr std::size_t nin = sizeof...(A);
    static_assert((arg_traits<bare_t<A>>::is_array || ...) || (arg_traits<bare_t<A>>::is_vector || ...) ||
                      (is_computed_arg_v<A> || ...),
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
    const std::array<operand_layout, nin> lay = layouts_of(in);
    const shape bshape = broadcast_inputs(name_, lay);
    const std::vector<int>* axp = o.axes_or_null();
    check_arg_axes(axp);
    const auto mask = axis_mask(bshape, axp, name_, o.single_axis);
    const auto g = make_geometry<nin>(bshape, mask, o.keepdims, lay);
    // As NumPy: any empty reduced range is an error without an identity, even
    // when the result is empty too ((0,0) over axis 0).
    if (g.R == 0 && !has_init)
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
    const reduce_job<has_init, Src, Acc, UsedOp, Fin, nin> job{src, g, op, init, fin};

    auto fill_value = [&] { return static_cast<Res>(fin(init)); };
    // Generic, so that a call returning a host scalar does not instantiate the
    // many-output engines (their kernels are most of a call site's compile time).
    auto compute_into = [&](auto& r) {
      if (g.K == 0) return;
      if (g.R == 0) {
        r = ufunc::full<Res, Target>(g.result, fill_value(), o.stream);
        return;
      }
      backend::run(job, r.data(), o.stream);
    };

    if constexpr (std::tuple_size_v<Outs> == 1) {
      auto ov = std::get<0>(outs);
      const auto ol = layout_of(ov);
      using OutT = typename decltype(ov)::value_type;
      check_out<Res, OutT>(ol, g.result, bshape, axp, o, lay);
      // On the host target a map or op that may throw (not noexcept) reduces
      // into the temporary below, so that an exception leaves out as it was
      // (the engines write each output as soon as it is reduced).
      constexpr bool nothrow =
          nothrow_call_v<Map, typename arg_traits<bare_t<A>>::value_type...> &&
          (!std::is_same_v<Kind, plain_kind> || nothrow_call_v<UsedOp, const Acc&, const Acc&>);
      constexpr bool in_place = nothrow || !std::is_same_v<Target, target::host>;
      if (in_place && std::is_same_v<OutT, Res> && ol.shp.count() > 0 && ov.is_contiguous() && g.R > 0) {
        backend::run(job, reinterpret_cast<Res*>(ov.data()), o.stream);
      } else if (g.K > 0) {
        array<Res, Target> tmp(g.result, o.stream);
        compute_into(tmp);
        cast_layout<Target, OutT, Res>(ov.data(), ol, tmp.data(), contiguous_layout(tmp.data(), sizeof(Res), ol.shp), o.stream);
      }
      return ov;
    } else if constexpr (Scalar) {
      if (g.R == 0) return fill_value();
      if constexpr (defers_values<backend>::value)
        if (o.defer) {  // (the sharded engine: read after it waits for the stream)
          o.defer->slot = backend::template enqueue_to_host<Res>(job, o.stream);
          return Res{};
        }
      return backend::template to_host<Res>(job, o.stream);
    } else {
      array<Res, Target> r(g.result, o.stream);
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

}  // namespace ufunc
