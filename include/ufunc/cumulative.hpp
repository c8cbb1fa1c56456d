// ufunc::cumsum and ufunc::cumprod: NumPy's running sums and products, as
// `vectorize(plus{}).accumulate` and `vectorize(multiplies{}).accumulate` (the
// same scan kernels, accumulator types and results), with NumPy's default of
// scanning the flattened array when no axis is given.
#pragma once

#include <type_traits>

#include "array.hpp"
#include "array_view.hpp"
#include "axis.hpp"
#include "detail/arg_traits.hpp"
#include "detail/call.hpp"         // layout_of
#include "detail/elementwise.hpp"  // cast_layout: the copy of a strided input
#include "ops.hpp"
#include "shape.hpp"
#include "stream.hpp"
#include "vectorize.hpp"

namespace ufunc {

/// A running reduction with Op (ufunc::cumsum, ufunc::cumprod): `c(x, axis(k))`
/// scans along axis k; `c(x)` scans x's elements in row-major order into a 1-D
/// array (NumPy's default axis=None). Either takes a stream last. A new array
/// on x's target, holding what `vectorize<Target>(Op{}).accumulate` holds (bool
/// and integers narrower than 64 bits accumulate in int64, uint64 when
/// unsigned, as NumPy's); a float scan's error grows with the run's length, as
/// NumPy's sequential one does. Enqueued on the stream (the default otherwise).
template <class Op>
struct cumulative {
  const char* name;

  template <class X>
  auto operator()(const X& x, ufunc::axis a, stream_ref s = {}) const {
    if (x.view().ndim() == 0 && (a.value == 0 || a.value == -1)) return (*this)(x, s);  // as NumPy: a 1-D result
    return vectorize<target_of<X>>(Op{}, name).accumulate(x, a, s);
  }
  /// The exclusive form along axis k: element k is the op over the elements before it.
  template <class X>
  auto operator()(const X& x, ufunc::axis a, exclusive_t ex, stream_ref s = {}) const {
    if (x.view().ndim() == 0 && (a.value == 0 || a.value == -1)) {  // one element: the identity, as a 1-D array
      const auto v = x.view();
      using T = typename decltype(v)::value_type;
      const array_view<const T, target_of<X>> one(v.data(), shape(1));
      return vectorize<target_of<X>>(Op{}, name).accumulate(one, axis(0), ex, s);
    }
    return vectorize<target_of<X>>(Op{}, name).accumulate(x, a, ex, s);
  }
  template <class X>
  auto operator()(const X& x, stream_ref s = {}) const {
    using Target = target_of<X>;
    const auto v = x.view();
    using T = typename decltype(v)::value_type;
    const auto f = vectorize<Target>(Op{}, name);
    if (v.is_contiguous()) return f.accumulate(array_view<const T, Target>(v.data(), shape(v.size())), axis(0), s);
    array<T, Target> flat(v.shape(), s);  // a row-major copy
    detail::cast_layout<Target, T, T>(flat.data(), detail::layout_of(flat), v.data(), detail::layout_of(v), s);
    return f.accumulate(array_view<const T, Target>(flat.data(), shape(v.size())), axis(0), s);
  }

 private:
  template <class X>
  using target_of = typename detail::arg_traits<detail::bare_t<X>>::target_type;
};

/// NumPy's `np.cumsum`: `cumsum(x, axis(k))`, or `cumsum(x)` over the flattened array.
inline constexpr cumulative<plus> cumsum{"cumsum"};
/// NumPy's `np.cumprod`: `cumprod(x, axis(k))`, or `cumprod(x)` over the flattened array.
inline constexpr cumulative<multiplies> cumprod{"cumprod"};

}  // namespace ufunc
