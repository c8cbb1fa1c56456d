// Zero-copy interop: DLPack tensors in and out, mdspans in and out. Not part of
// the umbrella header (ufunc.hpp), because its DLPack half needs <dlpack/dlpack.h>.
//
// DLPack (https://dmlc.github.io/dlpack/): the header comes from the DLPack
// maintainers' PyPI package apache-tvm-ffi (tvm_ffi/include/dlpack/dlpack.h,
// DLPack 1.3), which scripts/install-deps.sh unpacks into .deps/dlpack; any
// dlpack.h of 0.6 or later works, the DLManagedTensorVersioned overloads need
// 1.0 or later. The DLPack functions exist when <dlpack/dlpack.h> is found on the
// include path (or when UFUNC_HAVE_DLPACK is defined, which then requires it);
// this header defines UFUNC_HAVE_DLPACK when they do. Without it, calling one is
// a compile-time error saying so; the mdspan half needs only libcu++.
//
//   from_dlpack<T, Target>(tensor)     array_view over the tensor's memory, no copy;
//                                      the caller keeps the tensor alive and calls
//                                      its deleter (or: dlpack_view, which does)
//   dlpack_view<T, Target>(tensor)     owns the tensor: calls its deleter once
//   to_dlpack(std::move(array))        DLManagedTensor*, owning the array
//   to_dlpack_versioned(std::move(a))  the same as a DLManagedTensorVersioned*
//   to_dlpack(view, owner)             a tensor over a view, keeping `owner` (a
//                                      std::shared_ptr, an array ...) alive until
//                                      its deleter runs
//   make_view<Target>(mdspan)          array_view over a cuda::std (or std) mdspan
//   to_mdspan<R>(view)                 cuda::std::mdspan<T, dextents<index_t, R>,
//                                      layout_stride> over a view
//   make_view(thrust vector)           1-d array_view over a thrust::device_vector's
//                                      or host_vector's elements; calls, reductions,
//                                      out(...), matmul and transpose take the
//                                      vectors themselves
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <cuda/std/array>
#include <cuda/std/mdspan>


#include "array.hpp"
#include "array_view.hpp"
#include "config.hpp"
#include "detail/arg_traits.hpp"  // foreign_array: Thrust vectors as call arguments
#include "detail/dlpack.hpp"  // DLPack's tensors (detail::dlpack; defines UFUNC_HAVE_DLPACK where <dlpack/dlpack.h> is found)
#include "detail/element.hpp"
#include "detail/mdspan.hpp"  // views over mdspans and back (detail::)
#include "error.hpp"
#include "shape.hpp"

// Thrust's vectors (CCCL, beside libcu++): included after config.hpp, which picks
// Thrust's device system for g++-compiled code; views of them, and calls taking them.
#if __has_include(<thrust/device_vector.h>)
#  include <thrust/device_vector.h>
#  include <thrust/host_vector.h>
#  define UFUNC_HAVE_THRUST_VECTORS 1
#else
#  define UFUNC_HAVE_THRUST_VECTORS 0
#endif


namespace ufunc {

// ---------------------------------------------------------------------------
// mdspan
/// A view over a cuda::std::mdspan's memory (no copy): its extents and the
/// mapping's strides, in `Target` memory (the build's device by default; nothing
/// is checked). Strided layouts (layout_right, layout_left, layout_stride) and
/// the default accessor only (compile-time errors otherwise).
template <class Target = target::device, class T, class Extents, class Layout, class Accessor>
array_view<T, Target> make_view(const cuda::std::mdspan<T, Extents, Layout, Accessor>& m) {
  return detail::view_from_mdspan<Target>(m);
}

/// A cuda::std::mdspan over a view's memory (no copy), of the view's rank R
/// (a template argument: the view's rank is a run-time value; another rank
/// throws value_error). layout_stride needs positive strides and distinct
/// elements: a view with a negative or zero stride along an extent above 1, or
/// with overlapping elements, throws value_error.
template <std::size_t R, class T, class Target>
cuda::std::mdspan<T, cuda::std::dextents<index_t, R>, cuda::std::layout_stride> to_mdspan(
    const array_view<T, Target>& v) {
  return detail::mdspan_of<cuda::std::mdspan, cuda::std::default_accessor, cuda::std::layout_stride, cuda::std::array,
                           cuda::std::dextents<index_t, R>>(v, "ufunc::to_mdspan", std::make_index_sequence<R>{});
}

#if defined(__cpp_lib_mdspan)
/// The same for the standard library's std::mdspan (C++23, where it has one).
template <class Target = target::device, class T, class Extents, class Layout, class Accessor>
array_view<T, Target> make_view(const std::mdspan<T, Extents, Layout, Accessor>& m) {
  return detail::view_from_mdspan<Target>(m);
}
/// to_mdspan for std::mdspan.
template <std::size_t R, class T, class Target>
std::mdspan<T, std::dextents<index_t, R>, std::layout_stride> to_std_mdspan(const array_view<T, Target>& v) {
  return detail::mdspan_of<std::mdspan, std::default_accessor, std::layout_stride, std::array,
                           std::dextents<index_t, R>>(v, "ufunc::to_std_mdspan", std::make_index_sequence<R>{});
}
#endif

// ---------------------------------------------------------------------------
// Thrust vectors
#if UFUNC_HAVE_THRUST_VECTORS
namespace detail {
/// Where a thrust::device_vector's memory is: the build's device when Thrust's
/// device system is CUDA (a TU compiled by nvcc), host memory otherwise (the
/// host backend, and g++-compiled TUs, whose Thrust device system is OpenMP).
#  if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CUDA
using thrust_device_target = target::device;
#  else
using thrust_device_target = target::host;
#  endif
}  // namespace detail

/// A 1-d view of a Thrust vector's elements (no copy): a device_vector's in
/// the memory of Thrust's device system (the build's device under nvcc), a
/// host_vector's in host memory. The vector keeps the memory: resizing it or
/// destroying it invalidates the view, and work enqueued on a view must finish
/// before either. Calls, reductions, `out(...)`, matmul and transpose also take
/// the vectors themselves (as these views) when this header is included.
template <class T, class Alloc>
array_view<T, detail::thrust_device_target> make_view(thrust::device_vector<T, Alloc>& v) {
  return array_view<T, detail::thrust_device_target>(thrust::raw_pointer_cast(v.data()),
                                                     shape(static_cast<index_t>(v.size())));
}
template <class T, class Alloc>
array_view<const T, detail::thrust_device_target> make_view(const thrust::device_vector<T, Alloc>& v) {
  return array_view<const T, detail::thrust_device_target>(thrust::raw_pointer_cast(v.data()),
                                                           shape(static_cast<index_t>(v.size())));
}
template <class T, class Alloc>
array_view<T, target::host> make_view(thrust::host_vector<T, Alloc>& v) {
  return array_view<T, target::host>(thrust::raw_pointer_cast(v.data()), shape(static_cast<index_t>(v.size())));
}
template <class T, class Alloc>
array_view<const T, target::host> make_view(const thrust::host_vector<T, Alloc>& v) {
  return array_view<const T, target::host>(thrust::raw_pointer_cast(v.data()),
                                           shape(static_cast<index_t>(v.size())));
}
/// A temporary vector would be gone before the view is used.
template <class T, class Alloc>
void make_view(thrust::device_vector<T, Alloc>&&) = delete;
template <class T, class Alloc>
void make_view(thrust::host_vector<T, Alloc>&&) = delete;

namespace detail {
template <class T, class Alloc>
struct foreign_array<thrust::device_vector<T, Alloc>> : std::true_type {
  template <class V>
  static auto view(V& v) { return ufunc::make_view(v); }
};
template <class T, class Alloc>
struct foreign_array<thrust::host_vector<T, Alloc>> : std::true_type {
  template <class V>
  static auto view(V& v) { return ufunc::make_view(v); }
};
}  // namespace detail
#endif

// ---------------------------------------------------------------------------
// DLPack
#if defined(UFUNC_HAVE_DLPACK)

/// A view over a DLPack tensor's memory, without a copy: `T` must be the
/// tensor's dtype (bool, int8..int64, uint8..uint64, __half = float16,
/// __nv_bfloat16 = bfloat16, float, double; one lane), its device one that
/// `Target` addresses (target::host: kDLCPU or kDLCUDAHost; the CUDA target:
/// kDLCUDA, kDLCUDAManaged or kDLCUDAHost; in a host-backend build
/// target::device is target::host), its rank at most 8. byte_offset is applied;
/// strides are in elements (zero and negative ones as views take them), NULL
/// meaning row-major. Each mismatch throws value_error naming it. The view does
/// not own: the caller keeps the tensor alive while the view (and work enqueued
/// on it) is in use, then calls the tensor's deleter; `dlpack_view` does both.
/// The view carries no device: on the CUDA target calls run on the current
/// device, so make the tensor's device_id current first.
template <class T, class Target = target::device>
array_view<T, Target> from_dlpack(const DLTensor* t) {
  if (!t) throw value_error("ufunc::from_dlpack: null tensor");
  return detail::dlpack::view_of<T, Target>(*t, "ufunc::from_dlpack");
}
template <class T, class Target = target::device>
array_view<T, Target> from_dlpack(const DLManagedTensor* t) {
  if (!t) throw value_error("ufunc::from_dlpack: null tensor");
  return detail::dlpack::view_of<T, Target>(t->dl_tensor, "ufunc::from_dlpack");
}
#if DLPACK_MAJOR_VERSION >= 1
/// The same for a versioned tensor (DLPack >= 1.0), which also says its version
/// and whether it is read-only: another major version than this build's
/// dlpack.h throws value_error naming it; a read-only tensor
/// (DLPACK_FLAG_BITMASK_READ_ONLY) imports only as a view of const T.
template <class T, class Target = target::device>
array_view<T, Target> from_dlpack(const DLManagedTensorVersioned* t) {
  if (!t) throw value_error("ufunc::from_dlpack: null tensor");
  detail::dlpack::check_versioned<T>(t, "ufunc::from_dlpack");
  return detail::dlpack::view_of<T, Target>(t->dl_tensor, "ufunc::from_dlpack");
}
#endif

/// A DLPack tensor taken over: the view of from_dlpack, and the tensor, whose
/// deleter it calls exactly once, when it is destroyed (or reset). Move-only.
/// The constructor checks as from_dlpack does; when it throws it has taken
/// nothing, and the caller still calls the deleter (for a versioned tensor of
/// an unknown major version, calling the deleter is all DLPack allows).
/// Work enqueued on the view must be complete (or ordered before the deleter's
/// free) when it is destroyed.
template <class T, class Target = target::device>
class dlpack_view {
 public:
  dlpack_view() noexcept = default;
  explicit dlpack_view(DLManagedTensor* t) : view_(from_dlpack<T, Target>(t)) {
    tensor_ = t;
    drop_ = &detail::dlpack::drop<DLManagedTensor>;
  }
#if DLPACK_MAJOR_VERSION >= 1
  explicit dlpack_view(DLManagedTensorVersioned* t) : view_(from_dlpack<T, Target>(t)) {
    tensor_ = t;
    drop_ = &detail::dlpack::drop<DLManagedTensorVersioned>;
  }
#endif
  dlpack_view(const dlpack_view&) = delete;
  dlpack_view& operator=(const dlpack_view&) = delete;
  dlpack_view(dlpack_view&& o) noexcept
      : view_(o.view_), tensor_(std::exchange(o.tensor_, nullptr)), drop_(std::exchange(o.drop_, nullptr)) {
    o.view_ = {};
  }
  dlpack_view& operator=(dlpack_view&& o) noexcept {
    if (this != &o) {
      reset();
      view_ = std::exchange(o.view_, {});
      tensor_ = std::exchange(o.tensor_, nullptr);
      drop_ = std::exchange(o.drop_, nullptr);
    }
    return *this;
  }
  ~dlpack_view() { reset(); }

  /// Calls the tensor's deleter now (if one is held); the view becomes empty.
  void reset() noexcept {
    if (drop_) drop_(tensor_);
    tensor_ = nullptr;
    drop_ = nullptr;
    view_ = {};
  }

  const array_view<T, Target>& view() const noexcept { return view_; }
  operator array_view<T, Target>() const noexcept { return view_; }  // NOLINT: implicit by design
  T* data() const noexcept { return view_.data(); }
  const ufunc::shape& shape() const noexcept { return view_.shape(); }
  index_t size() const noexcept { return view_.size(); }
  int ndim() const noexcept { return view_.ndim(); }

 private:
  array_view<T, Target> view_;
  void* tensor_ = nullptr;
  void (*drop_)(void*) noexcept = nullptr;
};

/// The array as a DLPack tensor (DLManagedTensor, DLPack's legacy struct):
/// ownership moves into it, and its deleter frees the memory (on the array's
/// stream, stream-ordered as the array's destructor). device: kDLCPU 0 for host
/// arrays; kDLCUDA and the pointer's device for CUDA arrays. Nothing is
/// synchronised: work still pending on the array's stream must be waited for
/// (`a.stream().synchronize()` or similar) or ordered by the consumer.
template <class T, class Target>
DLManagedTensor* to_dlpack(array<T, Target>&& a) {
  const array_view<T, Target> v = a.view();
  return detail::dlpack::export_view<DLManagedTensor>(v, std::move(a));
}
/// A tensor over a view's memory, holding a copy of `owner` (a std::shared_ptr,
/// an array moved in, ...) until its deleter runs; pass nullptr when the memory
/// is known to outlive the tensor. The legacy struct cannot say read-only, so
/// views of const elements export through to_dlpack_versioned only (NumPy
/// refuses the same).
template <class T, class Target, class Owner>
DLManagedTensor* to_dlpack(const array_view<T, Target>& v, Owner owner) {
  static_assert(!std::is_const_v<T>,
                "ufunc::to_dlpack: a view of const elements exports only as a versioned tensor, which can be "
                "marked read-only: use ufunc::to_dlpack_versioned");
  return detail::dlpack::export_view<DLManagedTensor>(v, std::move(owner));
}
#if DLPACK_MAJOR_VERSION >= 1
/// to_dlpack as a DLManagedTensorVersioned (DLPack >= 1.0: the struct current
/// consumers ask for), of this build's dlpack.h version.
template <class T, class Target>
DLManagedTensorVersioned* to_dlpack_versioned(array<T, Target>&& a) {
  const array_view<T, Target> v = a.view();
  DLManagedTensorVersioned* m = detail::dlpack::export_view<DLManagedTensorVersioned>(v, std::move(a));
  m->version.major = DLPACK_MAJOR_VERSION;
  m->version.minor = DLPACK_MINOR_VERSION;
  return m;
}
/// A versioned tensor over a view, holding `owner` until its deleter runs; a
/// view of const elements gives a read-only tensor (DLPACK_FLAG_BITMASK_READ_ONLY).
template <class T, class Target, class Owner>
DLManagedTensorVersioned* to_dlpack_versioned(const array_view<T, Target>& v, Owner owner) {
  DLManagedTensorVersioned* m = detail::dlpack::export_view<DLManagedTensorVersioned>(v, std::move(owner));
  m->version.major = DLPACK_MAJOR_VERSION;
  m->version.minor = DLPACK_MINOR_VERSION;
  if constexpr (std::is_const_v<T>) m->flags |= DLPACK_FLAG_BITMASK_READ_ONLY;
  return m;
}
#endif

#else  // no <dlpack/dlpack.h>: the names exist, and using one says what is missing

namespace detail {
template <class...>
inline constexpr bool dlpack_missing = false;
}
template <class T, class Target = target::device, class... A>
void from_dlpack(A&&...) {
  static_assert(detail::dlpack_missing<T, A...>,
                "ufunc::from_dlpack: <dlpack/dlpack.h> was not found when ufunc/interop.hpp was compiled "
                "(scripts/install-deps.sh puts it in .deps/dlpack; add that to the include path)");
}
template <class... A>
void to_dlpack(A&&...) {
  static_assert(detail::dlpack_missing<A...>,
                "ufunc::to_dlpack: <dlpack/dlpack.h> was not found when ufunc/interop.hpp was compiled "
                "(scripts/install-deps.sh puts it in .deps/dlpack; add that to the include path)");
}
template <class... A>
void to_dlpack_versioned(A&&...) {
  static_assert(detail::dlpack_missing<A...>,
                "ufunc::to_dlpack_versioned: <dlpack/dlpack.h> was not found when ufunc/interop.hpp was compiled "
                "(scripts/install-deps.sh puts it in .deps/dlpack; add that to the include path)");
}

#endif  // UFUNC_HAVE_DLPACK

}  // namespace ufunc
