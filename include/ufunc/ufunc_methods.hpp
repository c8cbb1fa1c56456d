// The ufunc methods of a vectorized binary function: `f.reduce`, `f.accumulate`
// and `f.outer`, as NumPy's. vectorize.hpp declares them on the ufunc and
// includes this header; this one needs only a declaration of the ufunc class.
#pragma once

#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "array.hpp"
#include "array_view.hpp"
#include "axis.hpp"
#include "detail/call.hpp"
#include "detail/scan.hpp"
#include "error.hpp"
#include "reduce.hpp"
#include "shape.hpp"
#include "stream.hpp"

namespace ufunc {

template <class Target, class F>
class vectorized;

namespace detail {

/// The ufunc methods of a binary vectorized function (`f.reduce`, `f.accumulate`,
/// `f.outer`), as NumPy's.
template <class Target, class F>
struct ufunc_methods {
  template <class X, class... Rest>
  static auto reduce(const vectorized<Target, F>& f, const X& x, Rest&&... rest) {
    static_assert(std::is_same_v<typename arg_traits<bare_t<X>>::target_type, Target> ||
                      (is_sharded<bare_t<X>>::value && std::is_same_v<typename bare_t<X>::target_type, Target>),
                  "ufunc: reduce's input must live in the ufunc's target memory");
    const reducer<void, identity_map, F, no_init, plain_kind> r(identity_map{}, f.function(), no_init{}, f.name());
    constexpr bool has_axis = ((control_of<Rest>() == c_axes) || ...);
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
    using Acc = default_acc_t<F, T>;  // as reduce's (NumPy widens add/multiply accumulate too)
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
