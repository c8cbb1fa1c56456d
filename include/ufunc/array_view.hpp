// ufunc::array_view: a non-owning, strided window on memory someone else owns.
#pragma once

#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "config.hpp"
#include "error.hpp"
#include "shape.hpp"

namespace ufunc {

/// A non-owning N-d view: pointer, shape and element strides (which may be zero or
/// negative). It wraps memory owned elsewhere (an `ufunc::array`, a raw device
/// pointer, a `thrust::device_vector` through `make_view`), and every operation
/// that takes an array takes a view, so non-contiguous inputs (transposed, sliced,
/// broadcast) are used in place without copies. Views are trivially copyable and
/// can be captured by value in kernels; `v[i]` (row-major element i) and
/// `v(i, j, ...)` index them on host and device. The caller keeps the memory alive
/// and ordered with respect to the streams that use it.
template <class T, class Target = target::device>
class array_view {
 public:
  using element_type = T;
  using value_type = std::remove_cv_t<T>;
  using target_type = Target;

  UFUNC_HD array_view() noexcept {}

  /// A contiguous (row-major) view of `s.count()` elements at `data`.
  array_view(T* data, const ufunc::shape& s) : data_(data), shape_(s) {
    const auto st = contiguous_strides(s);
    for (int i = 0; i < s.size(); ++i) strides_[i] = st[static_cast<std::size_t>(i)];
  }

  /// A strided view; `strides` are in elements, one per dimension.
  array_view(T* data, const ufunc::shape& s, const std::vector<index_t>& strides) : data_(data), shape_(s) {
    if (static_cast<int>(strides.size()) != s.size())
      throw shape_error("array_view: " + std::to_string(strides.size()) + " strides given for shape " + s.str());
    for (int i = 0; i < s.size(); ++i) strides_[i] = strides[static_cast<std::size_t>(i)];
  }

  /// A view of non-const elements converts to a view of const ones.
  template <class U, std::enable_if_t<std::is_same_v<const U, T>, int> = 0>
  UFUNC_HD array_view(const array_view<U, Target>& o) noexcept : data_(o.data()), shape_(o.shape()) {
    for (int i = 0; i < shape_.size(); ++i) strides_[i] = o.stride(i);
  }

  UFUNC_HD T* data() const noexcept { return data_; }
  UFUNC_HD const ufunc::shape& shape() const noexcept { return shape_; }
  /// Element stride of dimension `i`.
  UFUNC_HD index_t stride(int i) const noexcept { return strides_[i]; }
  std::vector<index_t> strides() const { return {strides_, strides_ + shape_.size()}; }
  /// Number of elements.
  UFUNC_HD index_t size() const noexcept { return shape_.count(); }
  UFUNC_HD int ndim() const noexcept { return shape_.size(); }
  UFUNC_HD array_view view() const noexcept { return *this; }

  /// Element `i` in row-major order of the view's logical shape.
  UFUNC_HD T& operator[](index_t i) const noexcept {
    index_t off = 0;
    for (int d = shape_.size() - 1; d >= 0; --d) {
      const index_t n = shape_[d];
      off += (i % n) * strides_[d];
      i /= n;
    }
    return data_[off];
  }

  /// Element at a multi-index, one index per dimension.
  template <class... I, std::enable_if_t<(std::is_integral_v<I> && ...), int> = 0>
  UFUNC_HD T& operator()(I... idx) const noexcept {
    const index_t ii[] = {0, static_cast<index_t>(idx)...};
    index_t off = 0;
    for (int d = 0; d < static_cast<int>(sizeof...(I)); ++d) off += ii[d + 1] * strides_[d];
    return data_[off];
  }

  /// True when the elements are laid out row-major without gaps.
  bool is_contiguous() const noexcept { return is_row_major(shape_, strides_); }

  /// The view with its axes reversed (a matrix transpose for 2-D), no copy.
  array_view transposed() const {
    std::vector<int> axes(static_cast<std::size_t>(ndim()));
    std::iota(axes.rbegin(), axes.rend(), 0);
    return permuted(axes);
  }

  /// The view with axes reordered: result axis k is this view's axis `axes[k]`.
  array_view permuted(const std::vector<int>& axes) const {
    std::vector<bool> seen(static_cast<std::size_t>(ndim()), false);
    bool ok = static_cast<int>(axes.size()) == ndim();
    for (int a : axes) {
      if (!ok || a < 0 || a >= ndim() || seen[static_cast<std::size_t>(a)]) { ok = false; break; }
      seen[static_cast<std::size_t>(a)] = true;
    }
    if (!ok) {
      std::string s;
      for (std::size_t i = 0; i < axes.size(); ++i) s += (i ? "," : "") + std::to_string(axes[i]);
      throw shape_error("array_view::permuted: axes (" + s + ") are not a permutation for shape " + shape_.str());
    }
    std::vector<index_t> dims, st;
    for (int a : axes) {
      dims.push_back(shape_[a]);
      st.push_back(strides_[a]);
    }
    return array_view(data_, ufunc::shape(dims), st);
  }

  /// Python-style slice `[start:stop:step]` along `axis` (negative start/stop count
  /// from the end and are clamped; a negative step walks backwards). No copy.
  array_view sliced(int axis, index_t start, index_t stop, index_t step = 1) const {
    if (axis < 0) axis += ndim();
    if (axis < 0 || axis >= ndim())
      throw shape_error("array_view::sliced: axis " + std::to_string(axis) + " out of range for shape " +
                        shape_.str());
    if (step == 0) throw shape_error("array_view::sliced: step must not be zero");
    const index_t n = shape_[axis];
    auto clamp = [&](index_t v, index_t lo, index_t hi) { return v < lo ? lo : (v > hi ? hi : v); };
    if (start < 0) start += n;
    if (stop < 0) stop += n;
    index_t len;
    if (step > 0) {
      start = clamp(start, 0, n);
      stop = clamp(stop, 0, n);
      len = stop > start ? (stop - start + step - 1) / step : 0;
    } else {
      start = clamp(start, -1, n - 1);
      stop = clamp(stop, -1, n - 1);
      len = start > stop ? (start - stop - step - 1) / (-step) : 0;
    }
    std::vector<index_t> dims(shape_.begin(), shape_.end()), st = strides();
    dims[static_cast<std::size_t>(axis)] = len;
    st[static_cast<std::size_t>(axis)] = strides_[axis] * step;
    T* p = len > 0 ? data_ + start * strides_[axis] : data_;
    return array_view(p, ufunc::shape(dims), st);
  }

 private:
  T* data_ = nullptr;
  ufunc::shape shape_;
  index_t strides_[shape::max_rank] = {};
};

/// Wraps memory owned elsewhere as a view: `make_view(ptr, {rows, cols})` for a
/// contiguous block, or with explicit element strides. `Target` says where the
/// memory lives (the build's device by default); nothing is checked or copied.
template <class Target = target::device, class T>
array_view<T, Target> make_view(T* data, const shape& s) {
  return array_view<T, Target>(data, s);
}
template <class Target = target::device, class T>
array_view<T, Target> make_view(T* data, const shape& s, const std::vector<index_t>& strides) {
  return array_view<T, Target>(data, s, strides);
}

}  // namespace ufunc
