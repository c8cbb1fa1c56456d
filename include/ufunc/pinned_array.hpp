// ufunc::pinned_array: an owning N-d array in page-locked host memory. A
// vocabulary header: it depends on memory management only.
#pragma once

#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include "array_view.hpp"
#include "config.hpp"
#include "detail/memory.hpp"
#include "error.hpp"
#include "shape.hpp"

namespace ufunc {

/// An owning, row-major, contiguous N-d array in page-locked ("pinned") host
/// memory: `pinned_array<float> p(shape{n})`, `p.data()` a host pointer. On the
/// CUDA backend the device copies it at full link speed and asynchronously, so
/// a call that streams it (an input or an `out` of a device ufunc or reduction)
/// overlaps its transfers with the kernels and needs no staging copy; on the
/// host backend it is ordinary host memory. Everywhere else it behaves as a
/// host array (`array<T, target::host>`): `view()`, `shape()`, `size()`,
/// `to_host()`, accepted by host-target calls and as `out`. Page-locked memory
/// is a scarce system resource and slow to allocate: keep these for buffers
/// that are reused. Move-only; the contents start uninitialised.
template <class T>
class pinned_array {
  static_assert(std::is_trivially_copyable_v<T>, "ufunc::pinned_array: element type must be trivially copyable");

 public:
  using value_type = T;
  using target_type = target::host;

  pinned_array() noexcept : shape_(0) {}
  /// Uninitialised page-locked storage for `s.count()` elements.
  explicit pinned_array(const ufunc::shape& s) : shape_(s) {
    const auto n = static_cast<std::size_t>(s.count());
    if (n > SIZE_MAX / sizeof(T)) throw out_of_memory("ufunc::pinned_array: " + s.str() + " overflows the address space");
    data_ = static_cast<T*>(detail::pinned_memory::allocate(n * sizeof(T)));
  }
  pinned_array(const pinned_array&) = delete;
  pinned_array& operator=(const pinned_array&) = delete;
  pinned_array(pinned_array&& o) noexcept : data_(std::exchange(o.data_, nullptr)), shape_(o.shape_) {
    o.shape_ = ufunc::shape(0);
  }
  pinned_array& operator=(pinned_array&& o) noexcept {
    if (this != &o) {
      detail::pinned_memory::deallocate(data_);
      data_ = std::exchange(o.data_, nullptr);
      shape_ = o.shape_;
      o.shape_ = ufunc::shape(0);
    }
    return *this;
  }
  ~pinned_array() { detail::pinned_memory::deallocate(data_); }

  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }
  const ufunc::shape& shape() const noexcept { return shape_; }
  index_t size() const noexcept { return shape_.count(); }
  int ndim() const noexcept { return shape_.size(); }
  T& operator[](index_t i) noexcept { return data_[i]; }
  const T& operator[](index_t i) const noexcept { return data_[i]; }
  T* begin() noexcept { return data_; }
  T* end() noexcept { return data_ + size(); }
  const T* begin() const noexcept { return data_; }
  const T* end() const noexcept { return data_ + size(); }

  array_view<T, target::host> view() noexcept { return array_view<T, target::host>(data_, shape_); }
  array_view<const T, target::host> view() const noexcept { return array_view<const T, target::host>(data_, shape_); }
  operator array_view<T, target::host>() noexcept { return view(); }               // NOLINT: implicit by design
  operator array_view<const T, target::host>() const noexcept { return view(); }  // NOLINT

  /// A copy of the elements in a host vector (the memory is host memory already).
  std::vector<T> to_host() const { return std::vector<T>(data_, data_ + size()); }

 private:
  T* data_ = nullptr;
  ufunc::shape shape_;
};

}  // namespace ufunc
