// ufunc::vectorize: lifts a scalar function into a ufunc over N-d arrays with
// NumPy broadcasting, `out` buffers and several outputs.
#pragma once

#include <atomic>
#include <future>
#include <memory>
#include <new>
#include <optional>
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
#include "detail/host/helper_thread.hpp"
#include "detail/signature.hpp"
#include "detail/staged_out.hpp"
#include "detail/stream.hpp"
#include "detail/trace.hpp"
#include "detail/reduceat.hpp"  // f.reduceat's checks and engines (detail::)
#include "detail/ufunc_at.hpp"  // f.at's device side (detail::)
#include "error.hpp"
#include "expression.hpp"
#include "full.hpp"
#include "out.hpp"
#include "parallel_for.hpp"
#include "shape.hpp"
#include "stream.hpp"
#include "ufunc_methods.hpp"  // f.reduce, f.accumulate, f.outer
#include "detail/vectorize_call.hpp"  // its pieces (detail::)

namespace ufunc {

/// A ufunc: a scalar function lifted over arrays, made by `vectorize`.
///
/// Call it with inputs (arrays, views or scalars in any mix, broadcast by NumPy's
/// rules), then optionally `ufunc::out(...)` (its element type may differ from
/// the result's where NumPy's same_kind rule converts, else type_error; with
/// `ufunc::unsafe_cast` any), and a stream. Returns a new array of
/// the broadcast shape (a `std::tuple` of arrays when `f` returns a
/// `cuda::std::tuple`/`pair`), or, with `out`, the output view(s). Inputs convert
/// to `f`'s parameter types inside the kernel. Work is enqueued on the stream and
/// the call returns without waiting; reading a result (`to_host`) synchronises.
/// Called with `std::vector` inputs on the CUDA target it copies them to the
/// device, computes, and returns `std::vector` results (the slow path: transfers
/// dominate). Bad shapes or overlapping outputs throw `shape_error` before any
/// work is enqueued. On the host target an exception thrown by `f` reaches the
/// caller (the one a serial loop would meet first), and `out` is partly written:
/// each element holds its old value or its result, and when `out` has the
/// function's result type, every element before the throwing one (row-major)
/// holds its result (as NumPy leaves `out`). A sharded call leaves its sharded
/// `out` untouched. Device functions cannot throw.
template <class Target, class F>
class vectorized {
 public:
  using target_type = Target;

  vectorized(F f, const char* name) : f_(std::move(f)), name_(name) {}

  template <class... Args>
  decltype(auto) operator()(Args&&... args) const {
    using parsed =
        detail::call_args<detail::c_out | detail::c_stream | detail::c_unsafe_cast, detail::bare_t<Args>...>;
    static_assert(parsed::nin >= 1, "ufunc call: give at least one input");
    UFUNC_CHECK_CALL(parsed, "ufunc call", "ufunc::out(...), ufunc::unsafe_cast and a stream");
    using input_check = detail::inputs_check<F, std::tuple<Args...>, parsed::nin>;
    return detail::call_route<parsed::nin, input_check>(route_hooks{*this}, std::forward<Args>(args)...);
  }

  /// A lazy call: an expression node f(args...) (args: arrays, views, scalars or
  /// expressions; see ufunc::expression). Nothing runs; the shapes are checked
  /// now (shape_error naming this ufunc). Named arrays are held as views and must
  /// outlive the evaluation; rvalue arrays are owned by the expression.
  template <class... A>
  auto lazy(A&&... args) const {
    static_assert(sizeof...(A) >= 1, "f.lazy: give at least one input");
    using input_check = detail::inputs_check<F, std::tuple<A...>, sizeof...(A)>;
    if constexpr ((detail::is_foreign_v<A> || ...)) {
      static_assert(((!detail::is_foreign_v<A> || std::is_lvalue_reference_v<A>) && ...),
                    "f.lazy: a temporary Thrust vector would be gone before the expression is evaluated");
      return lazy(detail::adapt(std::forward<A>(args))...);  // held as views, as named arrays are
    } else if constexpr ((detail::is_sharded_operand_v<A> || ...)) {  // one node per shard when it runs (sharded.hpp)
      return detail::sharded_ops<detail::bare_t<A>...>::lazy(*this, std::forward<A>(args)...);
    } else if constexpr ((detail::is_out<detail::bare_t<A>>::value || ...) || (detail::is_stream_v<detail::bare_t<A>> || ...)) {
      return detail::make_node<Target>(f_, name_, std::forward<A>(args)...);  // stops at "an expression takes inputs only"
    } else if constexpr (!input_check::ok) {
      input_check::report();
      return detail::failed_call{};
    } else if constexpr (detail::any_core_v<A...>) {
      return detail::with_core_dims<sizeof...(A)>(
          name_, f_, std::forward_as_tuple(std::forward<A>(args)...),
          [&](auto g, auto&&... split) { return detail::make_node<Target>(g, name_, std::forward<decltype(split)>(split)...); });
    } else {
      return detail::make_node<Target>(f_, name_, std::forward<A>(args)...);
    }
  }

  const F& function() const noexcept { return f_; }
  const char* name() const noexcept { return name_; }

  /// NumPy's `ufunc.reduce` for a binary function: reduces `x` along `axis(k)`
  /// (axis 0 by default, with or without `keepdims`, as NumPy; `axes{...}`, `keepdims`, `out(...)` and a stream as for
  /// `ufunc::reduce`). f has no identity: an empty reduction throws value_error.
  /// f must be associative and commutative. Returns an array.
  template <class X, class... Rest>
  auto reduce(const X& x, Rest&&... rest) const {
    if constexpr (detail::is_foreign_v<X>) return reduce(detail::adapt(x), std::forward<Rest>(rest)...);
    else {
    static_assert(!detail::is_expression_v<X> && !detail::is_sharded_expr<detail::bare_t<X>>::value,
                  "f.reduce: the ufunc methods are eager; evaluate the expression first");
    return detail::ufunc_methods<Target, F>::reduce(*this, x, std::forward<Rest>(rest)...);
    }
  }
  /// NumPy's `ufunc.accumulate`: the inclusive scan of `x` along `axis` (default
  /// 0) with f; a new array of x's shape holding f's result type, enqueued on the
  /// stream. f must be associative (the scan runs in parallel).
  template <class X>
  auto accumulate(const X& x, ufunc::axis a = ufunc::axis(0), stream_ref s = {}) const {
    static_assert(!detail::is_expression_v<X>, "f.accumulate: the ufunc methods are eager; evaluate the expression first");
    if constexpr (detail::is_foreign_v<X>) return accumulate(detail::adapt(x), a, s);
    else return detail::ufunc_methods<Target, F>::accumulate(*this, x, a.value, s);
  }
  template <class X>
  auto accumulate(const X& x, stream_ref s) const {
    return accumulate(x, ufunc::axis(0), s);
  }
  /// The exclusive scan along `axis`: element k holds f over the elements
  /// before k, the first the op's identity (f must declare one: ufunc::plus,
  /// multiplies, minimum, maximum, ...). The inclusive scan's values moved one
  /// place along the axis (a copy after it).
  template <class X>
  auto accumulate(const X& x, ufunc::axis a, exclusive_t, stream_ref s = {}) const {
    auto r = accumulate(x, a, s);
    using Acc = typename decltype(r)::value_type;
    static_assert(detail::has_identity<F, Acc>::value,
                  "f.accumulate(..., ufunc::exclusive): an exclusive scan starts from the op's identity; use an op "
                  "that declares one (ufunc::plus, multiplies, minimum, maximum, ...)");
    array<Acc, Target> e(r.shape(), s);
    const int nd = r.ndim(), ax = a.value < 0 ? a.value + nd : a.value;  // (accumulate checked the axis)
    const index_t n = r.shape()[ax];
    if (e.size() > 0) {
      const auto first = e.view().sliced(ax, 0, 1);
      detail::fill_layout<Target, Acc>(first.data(), detail::layout_of(first), F::template identity<Acc>(), s);
      if (n > 1) {
        const auto to = e.view().sliced(ax, 1, n);
        const auto from = r.view().sliced(ax, 0, n - 1);
        detail::cast_layout<Target, Acc, Acc>(to.data(), detail::layout_of(to), from.data(), detail::layout_of(from), s);
      }
    }
    return e;
  }
  /// NumPy's `ufunc.reduceat`: along `axis` (default 0, negative counts from
  /// the end), output i reduces x[indices[i]:indices[i+1]] with f when
  /// indices[i] < indices[i+1], else holds x[indices[i]]; the last reduces to
  /// the axis' end. `indices`: a 1-D integer array or view in the ufunc's target
  /// memory, each in [0, n) (else shape_error, NumPy's IndexError, before
  /// anything is written). A new array of x's shape with the axis' extent the
  /// number of indices, of f.reduce's type, enqueued on the stream (the CUDA
  /// target first waits for its check of the indices). f must be associative
  /// (host: pairwise order, as f.reduce; CUDA: CUB's segmented reduction, f
  /// also commutative). docs/reductions.md states the float error bounds.
  template <class X, class I>
  auto reduceat(const X& x, const I& indices, ufunc::axis a = ufunc::axis(0), stream_ref s = {}) const {
    static_assert(!detail::is_expression_v<X>, "f.reduceat: the ufunc methods are eager; evaluate the expression first");
    if constexpr (detail::is_foreign_v<X> || detail::is_foreign_v<I>)
      return reduceat(detail::adapt(x), detail::adapt(indices), a, s);
    else
      return detail::reduceat_call<Target>(f_, name_, x, indices, a.value, s);
  }
  template <class X, class I>
  auto reduceat(const X& x, const I& indices, stream_ref s) const {
    return reduceat(x, indices, ufunc::axis(0), s);
  }
  /// NumPy's `ufunc.at` (unbuffered, in place): for each k, a[indices[k]] =
  /// f(a[indices[k]], b[k]), so repeated indices accumulate (`np.add.at`). `a` a
  /// 1-D array or view (any strides), `indices` a 1-D integer array or view
  /// (negative counts from the end), `b` a scalar or a 1-D array or view of
  /// indices' length; all in the ufunc's target memory. An index out of range
  /// throws shape_error and leaves a as it was. Indices that share memory with a
  /// are read as a held them before the call (NumPy's). Host target: in index order
  /// (NumPy's results for any f). CUDA target: concurrently, each update an
  /// atomic compare-and-swap of f(old, b[k]) (f associative and commutative;
  /// elements of 4 or 8 bytes; a float result within rounding of the sequential
  /// one), or for `plus` with b of a's type the native atomic add. Enqueued on
  /// the stream (the host target returns when done).
  template <class A, class I, class B>
  void at(A&& a, const I& indices, const B& b, stream_ref s = {}) const {
    using BA = detail::arg_traits<detail::bare_t<A>>;
    using BI = detail::arg_traits<detail::bare_t<I>>;
    using BB = detail::arg_traits<detail::bare_t<B>>;
    static_assert(BA::is_array && BI::is_array, "f.at: a and indices are arrays or views");
    static_assert(std::is_same_v<typename BA::target_type, Target> && std::is_same_v<typename BI::target_type, Target>,
                  "f.at: a and indices must live in the ufunc's target memory");
    using T = typename BA::value_type;
    using Ix = typename BI::value_type;
    static_assert(std::is_integral_v<Ix> && !std::is_same_v<Ix, bool>, "f.at: indices are integers");
    static_assert(!std::is_const_v<std::remove_reference_t<A>> || detail::is_view<detail::bare_t<A>>::value,
                  "f.at: a is written in place (a non-const array, or a view)");
    const array_view<T, Target> av(a.view());
    const array_view<const Ix, Target> iv(indices.view());
    if (av.ndim() != 1 || iv.ndim() != 1)
      throw shape_error(std::string(name_) + ".at: a and indices must be 1-D, not of shapes " + av.shape().str() +
                        " and " + iv.shape().str());
    const index_t n = av.shape()[0], m = iv.shape()[0];
    if constexpr (BB::is_array) {
      static_assert(std::is_same_v<typename BB::target_type, Target>, "f.at: b must live in the ufunc's target memory");
      const array_view<const typename BB::value_type, Target> bv(b.view());
      if (bv.ndim() != 1 || bv.shape()[0] != m)
        throw shape_error(std::string(name_) + ".at: b of shape " + bv.shape().str() + " for " + std::to_string(m) +
                          " indices (give a scalar or one value per index)");
      at_run(av, iv, detail::at_operand<const typename BB::value_type, Target, true>{bv, {}}, n, m, s);
    } else {
      at_run(av, iv, detail::at_operand<B, Target, false>{{}, b}, n, m, s);
    }
  }

  /// NumPy's `ufunc.outer`: r[i..., j...] = f(x[i...], y[j...]); the result has
  /// shape x.shape + y.shape (rank at most 8). `out(...)` and a stream as for a call.
  template <class X, class Y, class... Rest>
  auto outer(const X& x, const Y& y, Rest&&... rest) const {
    static_assert(!detail::is_expression_v<X> && !detail::is_expression_v<Y>,
                  "f.outer: the ufunc methods are eager; evaluate the expressions first");
    if constexpr (detail::is_foreign_v<X> || detail::is_foreign_v<Y>)
      return outer(detail::adapt(x), detail::adapt(y), std::forward<Rest>(rest)...);
    else
      return detail::ufunc_methods<Target, F>::outer(*this, x, y, std::forward<Rest>(rest)...);
  }

 private:
  friend struct detail::vectorized_access;

  template <class T, class Ix, class Bop>
  void at_run(const array_view<T, Target>& a, const array_view<const Ix, Target>& idx, const Bop& b, index_t n,
              index_t m, stream_ref s) const {
    if (m == 0) return;
    // Indices in a's memory would change under the updates: they are read from a
    // copy (the values a held before the call), on both targets.
    std::optional<array<Ix, Target>> idx_copy;
    if (detail::may_overlap(detail::layout_of(idx), detail::layout_of(a))) {
      idx_copy.emplace(shape(m), s);
      detail::cast_layout<Target, Ix, Ix>(idx_copy->data(), detail::layout_of(idx_copy->view()), idx.data(),
                                          detail::layout_of(idx), s);
    }
    const array_view<const Ix, Target> ix = idx_copy ? array_view<const Ix, Target>(idx_copy->view()) : idx;
    if constexpr (!detail::target_traits<Target>::is_device) {
      for (index_t k = 0; k < m; ++k) {  // every index checked before the first write
        const auto i = static_cast<index_t>(ix(k));
        if (i < -n || i >= n)
          throw shape_error(std::string(name_) + ".at: index " + std::to_string(i) + " is out of bounds for size " +
                            std::to_string(n) + " (position " + std::to_string(k) + ")");
      }
      for (index_t k = 0; k < m; ++k) {  // in index order, as NumPy
        auto i = static_cast<index_t>(ix(k));
        if (i < 0) i += n;
        a(i) = static_cast<T>(f_(a(i), b(k)));
      }
    } else {
      static_assert(sizeof(T) == 4 || sizeof(T) == 8, "f.at on the GPU: elements of 4 or 8 bytes (compare-and-swap)");
      const auto out_of_range = [&] {
        return shape_error(std::string(name_) + ".at: an index is out of bounds for size " + std::to_string(n) +
                           " (of " + std::to_string(m) + " indices)");
      };
      if (n == 0) throw out_of_range();  // (m > 0 indices, none in range)
      detail::host_flag<Target> bad(s);  // a host word the kernels set: no fill, no copy enqueued for it
      // Many indices into a small a (np.add.at's histograms): the updates check
      // their own indices (a bad one is skipped and sets the flag) and a keeps a
      // copy, put back if the flag is set: a is then as before the call. Two
      // passes over a instead of one over the indices (bench/NOTES.md, sessions
      // 16, 17 and 31).
      if (detail::at_checked_updates_pay(n, sizeof(T), m, sizeof(Ix))) {
        // (the copies are kernels: a copy engine's copy, cudaMemcpyAsync, made the call
        // 20 us slower on an H200: session 31, call 6)
        array<T, Target> keep(shape(n), s);
        const auto kv = keep.view();
        detail::cast_layout<Target, T, T>(kv.data(), detail::layout_of(kv), a.data(), detail::layout_of(a), s);
        constexpr int U = 4;
        const index_t step = (m + U - 1) / U;
        ufunc::parallel_for<Target>(
            static_cast<std::size_t>(step),
            detail::at_update_rounds<U, detail::at_update<F, T, Ix, Bop, Target>>{{f_, a, ix, b, bad.word()}, m, step},
            s);
        if (bad.read()) {
          detail::cast_layout<Target, T, T>(a.data(), detail::layout_of(a), kv.data(), detail::layout_of(kv), s);
          s.synchronize();  // a is as before when the error reaches the caller
          throw out_of_range();
        }
        return;
      }
      ufunc::parallel_for<Target>(static_cast<std::size_t>(m), detail::at_check<Ix, Target>{ix, n, bad.word()}, s);
      if (bad.read()) throw out_of_range();
      ufunc::parallel_for<Target>(static_cast<std::size_t>(m), detail::at_update<F, T, Ix, Bop, Target>{f_, a, ix, b},
                                  s);
    }
  }

  /// The steps of detail::call_route (call_route.hpp) for a ufunc call.
  struct route_hooks {
    const vectorized& self;
    template <class... A>
    decltype(auto) again(A&&... a) const {
      return self(std::forward<A>(a)...);
    }
    const char* name() const { return self.name_; }
    template <class... A>
    decltype(auto) shards(A&&... a) const {  // f on every shard, one stream per device (sharded.hpp)
      return detail::sharded_ops<detail::bare_t<A>...>::call(self, std::forward<A>(a)...);
    }
    const F& function() const { return self.f_; }
    template <class G>
    auto rebind(G g) const {
      return vectorized<Target, G>(g, self.name_);
    }
    template <class... A>
    decltype(auto) fused(const detail::controls& c, A&&... a) const {  // this call becomes the expression's root, one kernel
      using parsed = detail::call_args<detail::c_out | detail::c_stream | detail::c_unsafe_cast, detail::bare_t<A>...>;
      auto e = self.fuse(std::make_index_sequence<parsed::nin>{}, std::forward_as_tuple(std::forward<A>(a)...));
      return detail::run_expression<Target, parsed::has(detail::c_unsafe_cast)>(e, detail::out_views(a...), c.stream);
    }
    template <class... A>
    decltype(auto) plain(const detail::controls& c, A&&... a) const {
      using parsed = detail::call_args<detail::c_out | detail::c_stream | detail::c_unsafe_cast, detail::bare_t<A>...>;
      auto inputs = std::forward_as_tuple(std::forward<A>(a)...);
      return self.call(std::make_index_sequence<parsed::nin>{}, inputs, detail::out_views(a...), c.stream,
                       c.unsafe_cast);
    }
  };

  template <std::size_t... I, class In>
  auto fuse(std::index_sequence<I...>, In&& in) const {
    return detail::make_node<Target>(f_, name_, std::get<I>(std::move(in))...);
  }

  template <class A>
  static auto fetch(const A& a) {
    if constexpr (detail::arg_traits<A>::is_array)
      return a.to_host();
    else
      return std::apply([](const auto&... x) { return std::make_tuple(x.to_host()...); }, a);
  }

  template <std::size_t... I, class In, class Outs>
  auto call(std::index_sequence<I...>, In& in, const Outs& outs, stream_ref s, bool unsafe) const {
    using namespace detail;
    constexpr bool any_vector = (arg_traits<bare_t<std::tuple_element_t<I, In>>>::is_vector || ...);
    // A device ufunc given host memory (std::vector, host arrays and views,
    // pinned_array) among its inputs or outputs streams it (detail/stream.hpp);
    // a call with device operands only never takes that path.
    constexpr bool device_call = !std::is_same_v<Target, target::host>;
    constexpr bool host_in = (host_resident_v<bare_t<std::tuple_element_t<I, In>>> || ...);
    constexpr bool streamed = device_call && (host_in || outs_on_host<Outs>());
    static_assert(((std::is_void_v<typename arg_traits<bare_t<std::tuple_element_t<I, In>>>::target_type> ||
                    std::is_same_v<typename arg_traits<bare_t<std::tuple_element_t<I, In>>>::target_type, Target> ||
                    host_resident_v<bare_t<std::tuple_element_t<I, In>>>) &&
                   ...),
                  "ufunc: an array argument lives in another target's memory than this ufunc runs on");

    {
      using R = std::invoke_result_t<const F&, typename arg_traits<bare_t<std::tuple_element_t<I, In>>>::value_type...>;
      static_assert(!std::is_void_v<R>, "ufunc: the vectorized function must return a value");
      constexpr int nout = result_traits<R>::nout;
      constexpr std::size_t nin = sizeof...(I);

      const std::array<operand_layout, nin> in_layouts{layout_of(std::get<I>(in))...};
      const shape b = broadcast_inputs(name_, in_layouts);
      auto ops = cuda::std::make_tuple(operand_of(std::get<I>(in))...);

      auto out_layouts = [](const auto& out_views) {
        std::array<operand_layout, nout> l{};
        std::apply([&](const auto&... v) {
          std::size_t j = 0;
          ((l[j++] = layout_of(v)), ...);
        }, out_views);
        return l;
      };
      auto run = [&](const auto& out_views, const std::array<operand_layout, nout>& out_l, bool outs_host = false,
                     const late_host_outputs* late = nullptr) {
        std::array<operand_layout, nout + nin> all{};
        for (std::size_t j = 0; j < nout; ++j) all[j] = out_l[j];
        for (std::size_t i = 0; i < nin; ++i) all[nout + i] = in_layouts[i];
        auto ptrs = std::apply([](const auto&... v) { return cuda::std::make_tuple(v.data()...); }, out_views);
        if constexpr (streamed) {
          std::array<bool, nout + nin> host{};
          const auto oh = out_hosts(out_views);
          for (std::size_t j = 0; j < nout; ++j) host[j] = outs_host || oh[j];
          const std::array<bool, nin> ih{host_resident_v<bare_t<std::tuple_element_t<I, In>>>...};
          for (std::size_t i = 0; i < nin; ++i) host[nout + i] = ih[i];
          run_streamed<Target, R>(name_, f_, all[0].shp, ptrs, ops, all, host, s, late);
        } else {
          (void)outs_host, (void)late;
          run_elementwise<Target, R>(f_, all[0].shp, ptrs, ops, all, s);
        }
      };

      if constexpr (std::tuple_size_v<Outs> > 0) {
        static_assert(std::tuple_size_v<Outs> == nout,
                      "ufunc call: give out(...) one array per output of the function (out(a, b) for two)");
        check_out_casts<R, Outs>(unsafe, std::make_index_sequence<nout>{});
        const auto out_l = out_layouts(outs);
        for (std::size_t j = 0; j < out_l.size(); ++j) {
          check_broadcasts_to(name_, b, out_l[j].shp, j);
          if (out_l[j].shp != out_l[0].shp)
            throw shape_error(std::string(name_) + ": outputs have different shapes " + out_l[0].shp.str() + " and " +
                              out_l[j].shp.str());
        }
        check_overlap(name_, out_l, in_layouts);
        // Taken before f runs, so that ufunc calls f itself makes are not staged.
        staged_outputs* const staged = take_staging();
        constexpr bool nothrow =
            nothrow_call_v<F, typename arg_traits<bare_t<std::tuple_element_t<I, In>>>::value_type...>;
        if constexpr (std::is_same_v<Target, target::host> && !nothrow) {
          // f may throw (it is not noexcept). A plain call writes in place: an
          // exception leaves each element of out as it was or holding its result
          // (a temporary the size of out cost 1.8x at 2^24 and as much memory
          // again). A shard of a sharded call computes into a temporary, copied
          // into its out shard once every shard succeeded (staged_out.hpp).
          // (Device code cannot throw: the CUDA target writes in place.)
          if (!staged) {
            run(outs, out_l);
            return unwrap_single(outs);
          }
          constexpr auto seq = std::make_index_sequence<nout>{};
          auto temps = allocate_results<R, Target>(out_l[0].shp, s, seq);
          auto views = std::apply([](auto&... a) { return std::make_tuple(a.view()...); }, temps);
          run(views, out_layouts(views));
          auto copy = [temps = std::move(temps), outs, out_l, s, seq] { copy_results<Target>(temps, outs, out_l, s, seq); };
          if (staged)
            staged->add(std::move(copy));  // a sharded call copies once every shard succeeded
          else
            copy();
        } else {
          (void)staged;
          run(outs, out_l);
        }
        return unwrap_single(outs);
      } else if constexpr (any_vector && has_bool_output<R>(std::make_index_sequence<nout>{})) {
        // std::vector<bool> has no element storage to write into: compute into
        // host arrays, then copy out.
        auto results = allocate_results<R, Target>(b, s, std::make_index_sequence<nout>{});
        auto views = std::apply([](auto&... a) { return std::make_tuple(a.view()...); }, results);
        run(views, out_layouts(views));
        return fetch(unwrap_single(std::move(results)));
      } else if constexpr (any_vector) {  // host containers: results as vectors (streamed on a device target)
        constexpr auto seq = std::make_index_sequence<nout>{};
        const auto n = static_cast<std::size_t>(b.count());
        if constexpr (streamed) {
          if (n * result_elem_bytes<R>(seq) >= late_alloc_min_bytes) return unwrap_single(late_vectors<R>(n, b, run));
        }
        auto results = allocate_host_vectors<R>(n, seq);
        auto views = std::apply([&](auto&... v) { return std::make_tuple(make_view<Target>(v.data(), b)...); }, results);
        run(views, out_layouts(views), true);
        return unwrap_single(std::move(results));
      } else if constexpr (streamed) {  // host arrays on a device target: results in host arrays
        auto results = allocate_results<R, target::host>(b, s, std::make_index_sequence<nout>{});
        auto views = std::apply([](auto&... a) { return std::make_tuple(a.view()...); }, results);
        run(views, out_layouts(views), true);
        return unwrap_single(std::move(results));
      } else {
        auto results = allocate_results<R, Target>(b, s, std::make_index_sequence<nout>{});
        auto views = std::apply([](auto&... a) { return std::make_tuple(a.view()...); }, results);
        run(views, out_layouts(views));
        return unwrap_single(std::move(results));
      }
    }
  }

  /// A streamed call's result std::vectors, constructed (zero-filled, single
  /// threaded) while the pipeline copies in and computes (detail::late_build):
  /// in a small call, on this thread while the other OpenMP threads stage and
  /// enqueue every chunk; in a larger one, on the process's helper thread
  /// (host::helper_thread). On this thread when the pipeline first needs them
  /// when late_alloc_on_thread is off or the helper is busy with another call's
  /// vectors. The pipeline waits for them before its first write into them. If
  /// the call fails, the helper's vectors are waited for and freed before it
  /// returns; a bad_alloc reaches the caller after the pipeline drained.
  template <class R, class Run>
  static auto late_vectors(std::size_t n, const shape& b, const Run& run) {
    using namespace detail;
    constexpr int nout = result_traits<R>::nout;
    using vecs_t = decltype(allocate_host_vectors<R>(n, std::make_index_sequence<nout>{}));
    auto fault = [] {
#if defined(UFUNC_TESTING)
      if (detail::testing::pipeline().late_alloc_fault.load()) throw std::bad_alloc();
#endif
    };
    auto make = [n, fault] {
      fault();
      return allocate_host_vectors<R>(n, std::make_index_sequence<nout>{});
    };
    std::future<vecs_t> pending;
    // On failure the helper's vectors are waited for before this returns, so
    // nothing the call made outlives it.
    struct wait_for {
      std::future<vecs_t>& f;
      ~wait_for() {
        if (f.valid()) f.wait();
      }
    } const waiter{pending};
    std::optional<vecs_t> results;  // destroyed before `pending` is waited for
    auto obtain = [&] {
      if (!results) results.emplace(pending.valid() ? pending.get() : make());
    };
    late_host_outputs late;
    late.start = [&](bool small) {
      if (!late_alloc_on_thread().load(std::memory_order_relaxed)) return late_build::at_first_drain;
      if (small) return late_build::in_team;
      auto task = std::make_shared<std::packaged_task<vecs_t()>>(make);
      std::future<vecs_t> f = task->get_future();
      // Busy (another call's vectors) or no thread: made when first needed, here.
      if (!host::helper_thread::get().try_post([task] { (*task)(); })) return late_build::at_first_drain;
      pending = std::move(f);
      return late_build::helper;
    };
    late.bases = [&] {
      obtain();
      return std::apply([](auto&... v) { return std::vector<void*>{static_cast<void*>(v.data())...}; }, *results);
    };
    late.reserve = [&] {  // in_team: storage now, elements constructed in steps
      fault();
      results.emplace();
      std::apply([n](auto&... v) { ((v.reserve(n), detail::advise_reserved(v)), ...); }, *results);
    };
    late.construct_to = [&](std::size_t m) {  // within the capacity reserved: no reallocation
      std::apply([m](auto&... v) { (v.resize(m), ...); }, *results);
    };
    const auto views = late_result_views<R, Target>(b, std::make_index_sequence<nout>{});
    std::array<operand_layout, nout> out_l{};
    std::apply([&](const auto&... v) {
      std::size_t j = 0;
      ((out_l[j++] = layout_of(v)), ...);
    }, views);
    for (auto& l : out_l) l.data = nullptr;  // late: the pipeline asks `late` for the bases
    run(views, out_l, true, &late);
    obtain();  // an empty or unrun pipeline never asked
    return std::move(*results);
  }

  template <class R, class Outs, std::size_t... J>
  void check_out_casts(bool unsafe, std::index_sequence<J...>) const {
    (detail::check_out_cast<typename detail::result_traits<R>::template type<static_cast<int>(J)>,
                            typename std::tuple_element_t<J, Outs>::value_type>(name_, unsafe, J),
     ...);
  }

  F f_;
  const char* name_;
};

namespace detail {
struct vectorized_access {
  template <class Tg, class F, class In, class Outs>
  static auto call(const vectorized<Tg, F>& f, In& in, const Outs& outs, stream_ref s, bool unsafe) {
    return f.call(std::make_index_sequence<std::tuple_size_v<In>>{}, in, outs, s, unsafe);
  }
};

/// Expression `e` as one call: a ufunc of its fused functor called with its
/// leaves, into `outs` (a tuple of views, or none for new arrays), on `s`. The
/// caller parsed the call's controls; this runs the in-memory call with them
/// (an NVTX range named after the expression's root, as its call would open).
template <class Tg, bool Unsafe, class E, class Outs>
auto run_expression(const E& e, const Outs& outs, stream_ref s) {
  using G = fused<typename E::function_type>;
  const vectorized<Tg, G> g(G{e.function()}, e.name());
  const trace_range range(e.name());
  auto leaves = e.leaf_args();
  auto r = vectorized_access::call(g, leaves, outs, s, Unsafe);
  order_frees_after(e, s);
  return r;
}
}  // namespace detail

/// Lifts a scalar function `f` (a `UFUNC_HD` lambda or function object) into a
/// ufunc that runs on `Target`: the build's device by default, or
/// `ufunc::target::host` for the multi-core host version available in every
/// build (it takes and returns host arrays and `std::vector`s). `name` appears
/// in error messages.
template <class Target = target::device, class F>
vectorized<Target, F> vectorize(F f, const char* name = "vectorize") {
  return vectorized<Target, F>(std::move(f), name);
}

}  // namespace ufunc
