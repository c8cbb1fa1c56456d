// ufunc::array: the owning, contiguous N-d array, and the factories that make one
// without launching work (`full`, which launches a fill, is in full.hpp). A
// vocabulary header: it depends on memory management only.
#pragma once

#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "array_view.hpp"
#include "config.hpp"
#include "detail/memory.hpp"
#include "detail/trace.hpp"
#include "error.hpp"
#include "shape.hpp"
#include "stream.hpp"

#if __cplusplus >= 202002L && __has_include(<span>)
#  include <span>
#endif

namespace ufunc {

/// An owning, row-major, contiguous N-d array in `Target` memory (device memory
/// for the CUDA backend's default target, host memory for `target::host`).
/// Move-only: a deep copy is explicit (`copy()`), and nothing copies to the host
/// behind the caller's back (`to_host()` is the one synchronising read). Memory is
/// allocated and freed stream-ordered on the stream given at construction, from a
/// pool, so per-call results are cheap. Element types must be trivially copyable.
template <class T, class Target = target::device>
class array {
  static_assert(std::is_trivially_copyable_v<T>, "ufunc::array: element type must be trivially copyable");
  using mem = detail::memory<Target>;

 public:
  using value_type = T;
  using target_type = Target;

  /// An empty 1-D array of shape (0,).
  array() noexcept : shape_(0) {}

  /// Uninitialised storage for `s.count()` elements, allocated on stream `st`.
  explicit array(const ufunc::shape& s, stream_ref st = {}) : shape_(s), stream_(st) {
    const auto n = static_cast<std::size_t>(s.count());
    if (n > SIZE_MAX / sizeof(T)) throw out_of_memory("ufunc::array: " + s.str() + " overflows the address space");
    data_ = static_cast<T*>(mem::allocate(n * sizeof(T), st));
#if defined(UFUNC_POISON_ALLOCATIONS)
    // Test builds: new storage is all-ones bytes (NaN for floats, -1 for signed
    // integers), so an element a kernel fails to write cannot pass for a result.
    try {
      mem::fill_bytes(data_, 0xFF, n * sizeof(T), st);
    } catch (...) {  // a constructor that throws runs no destructor: free here
      mem::deallocate(data_, st);
      throw;
    }
#endif
  }

  array(const array&) = delete;
  array& operator=(const array&) = delete;
  array(array&& o) noexcept : data_(std::exchange(o.data_, nullptr)), shape_(o.shape_), stream_(o.stream_) {
    o.shape_ = ufunc::shape(0);
  }
  array& operator=(array&& o) noexcept {
    if (this != &o) {
      mem::deallocate(data_, stream_);
      data_ = std::exchange(o.data_, nullptr);
      shape_ = o.shape_;
      stream_ = o.stream_;
      o.shape_ = ufunc::shape(0);
    }
    return *this;
  }
  ~array() { mem::deallocate(data_, stream_); }

  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }
  const ufunc::shape& shape() const noexcept { return shape_; }
  /// Number of elements.
  index_t size() const noexcept { return shape_.count(); }
  int ndim() const noexcept { return shape_.size(); }
  /// The stream the array was allocated on (and will be freed on).
  stream_ref stream() const noexcept { return stream_; }

  array_view<T, Target> view() noexcept { return array_view<T, Target>(data_, shape_); }
  array_view<const T, Target> view() const noexcept { return array_view<const T, Target>(data_, shape_); }
  operator array_view<T, Target>() noexcept { return view(); }               // NOLINT: implicit by design
  operator array_view<const T, Target>() const noexcept { return view(); }  // NOLINT

  /// Copies the elements to a host vector, waiting for pending work on the
  /// array's stream (or on `st`, if given) first.
  std::vector<T> to_host() const { return to_host(stream_); }
  std::vector<T> to_host(stream_ref st) const {
    const detail::trace_range range("to_host");
    const auto n = static_cast<std::size_t>(size());
    if constexpr (std::is_same_v<T, bool>) {  // std::vector<bool> has no contiguous storage
      std::unique_ptr<bool[]> tmp(new bool[n ? n : 1]);
      mem::copy_to_host(tmp.get(), data_, n, st);
      return std::vector<bool>(tmp.get(), tmp.get() + n);
    } else {
      std::vector<T> h = detail::new_host_vector<T>(n);
      mem::copy_to_host(h.data(), data_, n * sizeof(T), st);
      return h;
    }
  }

  /// A deep copy, enqueued on the array's stream.
  array copy() const {
    array c(shape_, stream_);
    mem::copy(c.data_, data_, static_cast<std::size_t>(size()) * sizeof(T), stream_);
    return c;
  }

 private:
  T* data_ = nullptr;
  ufunc::shape shape_;
  stream_ref stream_;
};

/// A host-memory array (usable with `vectorize<target::host>` in any build).
template <class T>
using host_array = array<T, target::host>;

/// An uninitialised array of the given shape.
template <class T, class Target = target::device>
array<T, Target> empty(const shape& s, stream_ref st = {}) {
  return array<T, Target>(s, st);
}

/// An array of zeros (all-bits-zero, which is 0 for arithmetic types).
template <class T, class Target = target::device>
array<T, Target> zeros(const shape& s, stream_ref st = {}) {
  array<T, Target> a(s, st);
  detail::memory<Target>::fill_bytes(a.data(), 0, static_cast<std::size_t>(a.size()) * sizeof(T), st);
  return a;
}

/// An uninitialised array with the shape, element type and target of `a`.
template <class A>
auto empty_like(const A& a, stream_ref st = {}) {
  return empty<typename A::value_type, typename A::target_type>(a.shape(), st);
}

/// Copies `n = s.count()` host elements from `data` into a new array of shape `s`
/// on Target (device by default). Returns once `data` may be reused.
template <class Target = target::device, class T>
array<T, Target> asarray(const T* data, const shape& s, stream_ref st = {}) {
  const detail::trace_range range("asarray");
  array<T, Target> a(s, st);
  detail::memory<Target>::copy_from_host(a.data(), data, static_cast<std::size_t>(a.size()) * sizeof(T), st);
  return a;
}

/// Copies a host vector into a new array (1-D of the vector's length, or of shape
/// `s`, whose element count must equal the vector's size).
template <class Target = target::device, class T>
array<T, Target> asarray(const std::vector<T>& h, stream_ref st = {}) {
  return asarray<Target>(h.data(), shape(static_cast<index_t>(h.size())), st);
}
template <class Target = target::device, class T>
array<T, Target> asarray(const std::vector<T>& h, const shape& s, stream_ref st = {}) {
  if (s.count() != static_cast<index_t>(h.size()))
    throw shape_error("to_device: a vector of " + std::to_string(h.size()) + " elements cannot have shape " + s.str());
  return asarray<Target>(h.data(), s, st);
}

/// Host data to a new device array: `to_device(vec)`, `to_device(vec, shape)`,
/// `to_device(ptr, shape)` (and a `std::span` in C++20). Asynchronous on the
/// stream; returns once the source may be reused.
template <class T>
array<T> to_device(const std::vector<T>& h, stream_ref st = {}) {
  return asarray<target::device>(h, st);
}
template <class T>
array<T> to_device(const std::vector<T>& h, const shape& s, stream_ref st = {}) {
  return asarray<target::device>(h, s, st);
}
template <class T>
array<T> to_device(const T* data, const shape& s, stream_ref st = {}) {
  return asarray<target::device>(data, s, st);
}
#if __cplusplus >= 202002L && __has_include(<span>)
template <class T, std::size_t E>
array<std::remove_const_t<T>> to_device(std::span<T, E> h, const shape& s, stream_ref st = {}) {
  if (s.count() != static_cast<index_t>(h.size()))
    throw shape_error("to_device: a span of " + std::to_string(h.size()) + " elements cannot have shape " + s.str());
  return asarray<target::device>(h.data(), s, st);
}
#endif

}  // namespace ufunc
