// ufunc::gufunc: generalized ufuncs (NumPy's gufuncs, Numba's @guvectorize). The
// function sees, per loop element, views of its operands' core blocks named by
// a signature such as "(m,n),(n)->(m)"; the leading (loop) dims broadcast as for
// ufuncs. One call of the function per loop element: a GPU thread each (small
// dense input cores staged through shared memory by the thread's block), or
// the host pool's loop.
#pragma once

#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "array.hpp"
#include "array_view.hpp"
#include "config.hpp"
#include "detail/call.hpp"
#include "detail/elementwise.hpp"  // cast_layout: a held-back result into the given out
#include "detail/gufunc_body.hpp"  // the loop body (detail::)
#include "detail/gufunc_plan.hpp"  // signatures and plans (detail::)
#include "error.hpp"
#include "out.hpp"
#include "parallel_for.hpp"
#include "shape.hpp"
#include "stream.hpp"

namespace ufunc {

/// A generalized ufunc over Target (ufunc::gufunc makes one): `g(inputs...)`
/// returns new outputs, `g(inputs..., ufunc::out(outputs...))` writes given ones;
/// a stream may follow. Out... are the outputs' element types (none: one output
/// of the first input's element type).
template <class Target, class F, class... Out>
class gufunction {
 public:
  static constexpr std::size_t nout = sizeof...(Out) == 0 ? 1 : sizeof...(Out);

  gufunction(F f, const std::string& signature, const char* name)
      : f_(std::move(f)), sig_(detail::parse_gufunc_signature(signature)), name_(name) {
    if (sig_.outs.size() != nout)
      throw value_error(std::string(name_) + " " + sig_.text + ": the signature has " + std::to_string(sig_.outs.size()) +
                        " outputs, the gufunc's type list " + std::to_string(nout));
  }

  /// Runs f once per loop element. Inputs: arrays or views in Target's memory
  /// (all of them; no scalars: give a 0-d array); then optionally
  /// `ufunc::out(o...)` (one view per output, of exactly the call's output
  /// shape and the gufunc's output types; none may overlap an input or another
  /// output) and a stream. Throws shape_error (naming the signature, the
  /// dimension's symbol and both extents, or the shapes that do not broadcast)
  /// and value_error (operand counts) before anything runs. Enqueued on the
  /// stream (the CUDA target returns before the work is done). When f throws
  /// (host target), the exception reaches the caller and a given out is left
  /// as it was, unless f is noexcept (then the outputs are written in place).
  template <class... A>
  auto operator()(A&&... a) const {
    using parsed = detail::call_args<detail::c_out | detail::c_stream, detail::bare_t<A>...>;
    UFUNC_CHECK_CALL(parsed, "ufunc::gufunc", "ufunc::out(...) and a stream");
    auto all = std::forward_as_tuple(a...);
    return run(std::make_index_sequence<parsed::nin>{}, std::make_index_sequence<sizeof...(A) - parsed::nin>{}, all);
  }

  const std::string& signature() const noexcept { return sig_.text; }
  const char* name() const noexcept { return name_; }

 private:
  template <std::size_t I, class... X>
  using out_type_t = std::tuple_element_t<I, std::tuple<X...>>;

  template <std::size_t... I, std::size_t... C, class All>
  auto run(std::index_sequence<I...>, std::index_sequence<C...>, All& all) const {
    constexpr std::size_t nin = sizeof...(I);
    static_assert(nin >= 1, "ufunc::gufunc: give at least one input array");
    auto ins = std::make_tuple(input_view(std::get<I>(all))...);
    using First = typename std::tuple_element_t<0, decltype(ins)>::value_type;
    const detail::controls ctl = detail::read_controls(std::get<nin + C>(all)...);
    auto given = detail::out_views(std::get<nin + C>(all)...);
    return with_types<First>(ins, given, ctl.stream, std::make_index_sequence<nout>{});
  }

  template <class X>
  static auto input_view(const X& x) {
    using B = detail::arg_traits<detail::bare_t<X>>;
    static_assert(B::is_array, "ufunc::gufunc: inputs are arrays or views (a scalar: a 0-d array)");
    static_assert(std::is_same_v<typename B::target_type, Target>,
                  "ufunc::gufunc: the inputs must live in the gufunc's target memory");
    return array_view<const typename B::value_type, Target>(x.view());
  }

  template <class First, class Ins, class Given, std::size_t... J>
  auto with_types(const Ins& ins, const Given& given, stream_ref s, std::index_sequence<J...>) const {
    using outs_t = std::conditional_t<sizeof...(Out) == 0, std::tuple<First>, std::tuple<Out...>>;
    constexpr std::size_t ngiven = std::tuple_size_v<Given>;
    static_assert(ngiven == 0 || ngiven == nout, "ufunc::gufunc: ufunc::out(...) names one view per output");
    std::vector<detail::operand_layout> in_l, out_l;
    std::apply([&](const auto&... v) { (in_l.push_back(detail::layout_of(v)), ...); }, ins);
    if constexpr (ngiven > 0) {
      auto check_out = [&](const auto& v, auto j) {
        using V = detail::bare_t<decltype(v)>;
        static_assert(std::is_same_v<typename V::target_type, Target>,
                      "ufunc::gufunc: an out must live in the gufunc's target memory");
        static_assert(std::is_same_v<typename V::value_type, std::tuple_element_t<decltype(j)::value, outs_t>>,
                      "ufunc::gufunc: an out's element type must be the gufunc's output type");
        out_l.push_back(detail::layout_of(v));
      };
      (check_out(std::get<J>(given), std::integral_constant<std::size_t, J>{}), ...);
    }
    const detail::gufunc_plan p = detail::plan_gufunc(sig_, in_l, out_l, name_);
    if constexpr (ngiven > 0) check_given(in_l, out_l);
    // New outputs: every call. Given ones: written in place when f cannot throw
    // or runs on a device, else through new arrays copied in once f returned.
    auto make_fresh = [&] { return std::make_tuple(array<std::tuple_element_t<J, outs_t>, Target>(p.out_shapes[J], s)...); };
    if constexpr (ngiven > 0) {
      constexpr bool in_place = detail::target_traits<Target>::is_device ||
                                noexcept_call<std::tuple_element_t<J, outs_t>...>(static_cast<Ins*>(nullptr));
      if constexpr (in_place) {
        launch(p, ins, std::make_tuple(std::get<J>(given)...), s);
      } else {
        auto fresh = make_fresh();
        launch(p, ins, std::make_tuple(std::get<J>(fresh).view()...), s);
        (copy_into(std::get<J>(fresh), std::get<J>(given), s), ...);
      }
      if constexpr (nout == 1) return std::get<0>(given);
      else return std::make_tuple(std::get<J>(given)...);
    } else {
      auto fresh = make_fresh();
      launch(p, ins, std::make_tuple(std::get<J>(fresh).view()...), s);
      if constexpr (nout == 1) return std::move(std::get<0>(fresh));
      else return fresh;
    }
  }

  template <class... O, class... V>
  static constexpr bool noexcept_call(std::tuple<V...>*) {
    return noexcept(std::declval<const F&>()(std::declval<V>()..., std::declval<array_view<O, Target>>()...));
  }

  void check_given(const std::vector<detail::operand_layout>& in_l, const std::vector<detail::operand_layout>& out_l) const {
    const std::string who = std::string(name_) + " " + sig_.text;
    for (std::size_t j = 0; j < out_l.size(); ++j) {
      if (!detail::no_internal_overlap(out_l[j]))
        throw shape_error(who + ": output " + std::to_string(j) + " has overlapping elements");
      for (std::size_t i = 0; i < in_l.size(); ++i)
        if (detail::may_overlap(out_l[j], in_l[i]))
          throw shape_error(who + ": output " + std::to_string(j) + " overlaps input " + std::to_string(i) +
                            " (a gufunc's outputs must not share memory with its inputs)");
      for (std::size_t k = 0; k < j; ++k)
        if (detail::may_overlap(out_l[j], out_l[k]))
          throw shape_error(who + ": outputs " + std::to_string(k) + " and " + std::to_string(j) + " overlap");
    }
  }

  template <class T, class V>
  static void copy_into(const array<T, Target>& from, const V& to, stream_ref s) {
    if (from.size() == 0) return;
    detail::cast_layout<Target, T, T>(to.data(), detail::layout_of(to), from.data(), detail::layout_of(from), s);
  }

  template <class Ins, class Outs>
  void launch(const detail::gufunc_plan& p, const Ins& ins, const Outs& outs, stream_ref s) const {
    const index_t n = p.loop.count();
    bool any = false;  // an output with elements (another may have a core dim of 0)
    for (const auto& sh : p.out_shapes) any = any || sh.count() > 0;
    if (n == 0 || !any) return;
    auto arg = [&](const auto& v, std::size_t k) {
      using V = detail::bare_t<decltype(v)>;
      const detail::gufunc_operand& o = p.ops[k];
      detail::gufunc_arg<typename V::element_type, Target> a{};
      std::vector<index_t> dims(o.core_dims.begin(), o.core_dims.begin() + o.core_rank);
      std::vector<index_t> st(o.core_strides.begin(), o.core_strides.begin() + o.core_rank);
      a.core = array_view<typename V::element_type, Target>(v.data(), shape(dims), st);
      for (int d = 0; d < shape::max_rank; ++d) a.loop_strides[d] = o.loop_strides[static_cast<std::size_t>(d)];
      return a;
    };
    const auto all = std::tuple_cat(ins, outs);
    auto args = make_args(arg, all, std::make_index_sequence<std::tuple_size_v<decltype(all)>>{});
    detail::gufunc_body<Target, F, decltype(args)> body{f_, p.loop.size(), {}, args};
    for (int d = 0; d < p.loop.size(); ++d) body.loop[d] = p.loop[d];
    if constexpr (detail::target_traits<Target>::is_device)
      detail::gufunc_backend<Target>::run(body, p, std::tuple_size_v<Ins>, n, s);  // inputs staged in shared memory
    else
      parallel_for<Target>(static_cast<std::size_t>(n), body, s);
  }

  // (in operand order: function arguments are evaluated in no given order)
  template <class Arg, class All, std::size_t... K>
  static auto make_args(const Arg& arg, const All& all, std::index_sequence<K...>) {
    return cuda::std::make_tuple(arg(std::get<K>(all), K)...);
  }

  F f_;
  detail::gufunc_signature sig_;
  const char* name_;
};

/// A generalized ufunc of `f` with NumPy's `signature`, e.g. "(m,n),(n)->(m)"
/// (a matrix-vector product), "(n)->(n)" (a row's softmax), "(3,3),(3)->(3)"
/// (fixed sizes). For each loop element f is called with one view per operand
/// of its core block: `array_view<const T, Target>` for the inputs,
/// `array_view<O, Target>` for the outputs (rank = the number of core dims;
/// `v(i, j)`, `v.shape()[k]`; strided, in place). f writes the outputs and
/// returns nothing. The loop dims (those before the core dims) broadcast by
/// NumPy's rules; a core dimension named twice must have one extent; an
/// output's core dims must be set by the inputs (or by the given out). Out...
/// lists the outputs' element types (default: one output, the first input's
/// type). Thread safety as a vectorize call's: f is copied to the device and
/// called concurrently. Throws value_error for a malformed signature or an
/// output count other than Out...'s.
template <class Target = target::device, class... Out, class F>
gufunction<Target, F, Out...> gufunc(F f, const std::string& signature, const char* name = "gufunc") {
  return gufunction<Target, F, Out...>(std::move(f), signature, name);
}

}  // namespace ufunc
