// Computed arrays: call arguments and expression leaves whose elements are a
// function of their index, with no memory (the lazy random leaves,
// ufunc/random.hpp). Such an argument is an array to the planner (a shape and
// row-major strides: it broadcasts, merges and is walked along axes as an array
// of its shape is) and a computed operand to the kernels (operand.hpp's
// in_computed: element at offset off is gen.value(base + off)). The front end
// turns it into a layout and an operand in one place (call.hpp's layout_of and
// operand_of), and a streamed call's chunk of it is the same generator moved to
// the chunk's first element (part()).
#pragma once

#include <array>
#include <cstdint>
#include <type_traits>

#include "../config.hpp"
#include "../shape.hpp"
#include "arg_traits.hpp"
#include "layout.hpp"
#include "operand.hpp"

namespace ufunc::detail {

/// A computed array as a call argument: its element at multi-index (i_0, ...)
/// is gen.value(base + sum_d i_d strides[d]). A leaf's whole view has base 0
/// and the row-major strides of its shape, so element i (row-major) of the leaf
/// is the generator's element i. `Target`: the target it runs on (void: none of
/// its own; it takes that of the arrays it meets, else the build's device).
template <class Gen, class Target = void>
struct computed_view {
  using value_type = typename Gen::value_type;
  Gen gen;
  std::uint64_t base = 0;
  ufunc::shape shp;
  std::array<index_t, shape::max_rank> strides{};

  static computed_view whole(const Gen& g, const ufunc::shape& s) {
    computed_view v;
    v.gen = g;
    v.shp = s;
    const auto cs = contiguous_strides(s);
    for (std::size_t d = 0; d < cs.size(); ++d) v.strides[d] = cs[d];
    return v;
  }
  /// The planner's view: an array of shp and strides, computed, with no memory.
  operand_layout layout() const {
    operand_layout l;
    l.is_array = true;
    l.computed = true;
    l.data = computed_origin();
    l.elem_size = sizeof(value_type);
    l.shp = shp;
    for (std::size_t d = 0; d < strides.size(); ++d) l.strides[d] = strides[d];
    return l;
  }
  /// The kernels' operand: offset 0 is element `base`.
  in_computed<Gen> operand() const { return {gen, base}; }
  /// The part of this view a streamed chunk walks: first element `first`
  /// (offset from base, in elements), shape and strides the chunk's.
  computed_view part(index_t first, const ufunc::shape& s, const std::array<index_t, shape::max_rank>& st) const {
    computed_view v = *this;
    v.base = base + static_cast<std::uint64_t>(first);
    v.shp = s;
    v.strides = st;
    return v;
  }
};

template <class Gen, class Tg>
struct arg_traits<computed_view<Gen, Tg>> {
  // Neither an array (no memory: no view(), no data()) nor a scalar; call.hpp
  // asks is_computed_arg_v first.
  static constexpr bool is_array = false, is_vector = false, is_dense = false;
  using value_type = typename Gen::value_type;
  using target_type = Tg;
};

template <class A>
struct is_computed_arg : std::false_type {};
template <class Gen, class Tg>
struct is_computed_arg<computed_view<Gen, Tg>> : std::true_type {};
/// True for a computed array argument (computed_view).
template <class A>
inline constexpr bool is_computed_arg_v = is_computed_arg<std::remove_cv_t<std::remove_reference_t<A>>>::value;
/// A computed argument pinned to a target (its reduction or call runs there).
template <class A>
inline constexpr bool is_pinned_computed_v =
    is_computed_arg_v<A> && !std::is_void_v<typename arg_traits<std::remove_cv_t<std::remove_reference_t<A>>>::target_type>;

/// A computed array as an expression leaf (expression.hpp): no memory, nothing
/// owned, no target of its own (the expression holding it has one when it is
/// pinned).
template <class Gen, class Target = void>
struct computed_leaf {
  using value_type = typename Gen::value_type;
  using target_type = void;
  static constexpr bool computed = true;
  computed_view<Gen, Target> view;
  computed_view<Gen, Target> arg() const { return view; }
};

template <class L, class = void>
struct is_computed_leaf : std::false_type {};
template <class L>
struct is_computed_leaf<L, std::enable_if_t<L::computed>> : std::true_type {};

}  // namespace ufunc::detail
