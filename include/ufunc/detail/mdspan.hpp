// The mdspan half of interop.hpp: a view over any strided mdspan (std:: or
// cuda::std::) and an mdspan over a view.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>

#include <cuda/std/array>
#include <cuda/std/mdspan>

#include "../array_view.hpp"
#include "../config.hpp"
#include "../error.hpp"
#include "../shape.hpp"

#if __has_include(<version>)
#  include <version>
#endif
#if defined(__cpp_lib_mdspan)
#  include <mdspan>
#endif

namespace ufunc::detail {

/// The view over any strided mdspan (std:: or cuda::std::): data handle, extents
/// and the mapping's strides. The layout must be strided (layout_right,
/// layout_left, layout_stride, the padded layouts) and the accessor one that
/// reads `p[i]` (the default accessor or one derived from it).
template <class Target, class M>
auto view_from_mdspan(const M& m) {
  using T = typename M::element_type;
  static_assert(M::rank() <= static_cast<std::size_t>(shape::max_rank),
                "ufunc::make_view(mdspan): ufunc views have rank 8 at most");
  static_assert(M::mapping_type::is_always_strided(),
                "ufunc::make_view(mdspan): the layout must be strided (layout_right, layout_left, layout_stride)");
  static_assert(std::is_same_v<typename M::data_handle_type, T*> && std::is_same_v<typename M::reference, T&>,
                "ufunc::make_view(mdspan): the accessor must address elements as p[i] (the default accessor)");
  std::vector<index_t> dims(M::rank()), strides(M::rank());
  if constexpr (M::rank() > 0)  // stride() exists for rank > 0 only
    for (std::size_t r = 0; r < M::rank(); ++r) {
      dims[r] = static_cast<index_t>(m.extent(r));
      strides[r] = static_cast<index_t>(m.stride(r));
    }
  return array_view<T, Target>(m.data_handle(), ufunc::shape(dims), strides);
}

/// The strides of `v` as a layout_stride mapping accepts them (all positive, a
/// unique mapping), or value_error naming what is not. Dimensions of extent 0
/// or 1 address nothing through their stride: theirs becomes 1.
template <std::size_t R, class T, class Target>
std::array<index_t, R> mdspan_strides(const array_view<T, Target>& v, const char* what) {
  if (v.ndim() != static_cast<int>(R))
    throw value_error(std::string(what) + ": the view has rank " + std::to_string(v.ndim()) + " (shape " +
                      v.shape().str() + "), the mdspan asked for rank " + std::to_string(R));
  std::array<index_t, R> st{};
  if constexpr (R > 0) {  // (no loops over an empty range: nvcc warns of them)
    for (std::size_t r = 0; r < R; ++r) {
      const int d = static_cast<int>(r);
      st[r] = v.shape()[d] <= 1 ? 1 : v.stride(d);
      if (st[r] <= 0)
        throw value_error(std::string(what) + ": stride " + std::to_string(v.stride(d)) + " of dimension " +
                          std::to_string(d) + " (shape " + v.shape().str() +
                          "): layout_stride takes positive strides only (a broadcast or reversed view has none)");
    }
    // layout_stride's uniqueness rule (as libcu++ asserts it): ordered by stride,
    // each stride at least the previous one times its extent.
    std::array<std::size_t, R> p{};
    for (std::size_t r = 0; r < R; ++r) p[r] = r;
    auto before = [&](std::size_t a, std::size_t b) {
      return st[a] < st[b] ||
             (st[a] == st[b] && v.shape()[static_cast<int>(a)] <= 1 && v.shape()[static_cast<int>(b)] > 1);
    };
    for (std::size_t i = 1; i < R; ++i)
      for (std::size_t j = i; j > 0 && before(p[j], p[j - 1]); --j) std::swap(p[j], p[j - 1]);
    for (std::size_t i = 1; i < R; ++i) {
      const index_t prev = st[p[i - 1]], ext = v.shape()[static_cast<int>(p[i - 1])];
      if (ext > 0 && st[p[i]] / ext < prev)  // st[p[i]] < prev * ext, without overflow
        throw value_error(std::string(what) + ": the view's elements overlap (shape " + v.shape().str() +
                          ", strides " + [&] {
                            std::string s;
                            for (int k = 0; k < v.ndim(); ++k) s += (k ? "," : "") + std::to_string(v.stride(k));
                            return s;
                          }() + "): layout_stride maps every index to a distinct element");
    }
  }
  return st;
}

template <template <class, class, class, class> class MdSpan, template <class> class Accessor, class LayoutStride,
          template <class, std::size_t> class Array, class Extents, class T, class Target, std::size_t... I>
auto mdspan_of(const array_view<T, Target>& v, const char* what, std::index_sequence<I...>) {
  constexpr std::size_t R = sizeof...(I);
  const std::array<index_t, R> st = mdspan_strides<R>(v, what);
  using mapping = typename LayoutStride::template mapping<Extents>;
  const Extents ext(v.shape()[static_cast<int>(I)]...);
  return MdSpan<T, Extents, LayoutStride, Accessor<T>>(v.data(), mapping(ext, Array<index_t, R>{st[I]...}));
}

}  // namespace ufunc::detail
