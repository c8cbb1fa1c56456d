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
#include "detail/cuda/runtime.hpp"  // runtime<target::cuda>: the device of a pointer (CUDA builds only)
#include "detail/element.hpp"
#include "error.hpp"
#include "shape.hpp"

#if defined(UFUNC_HAVE_DLPACK)
#  include <dlpack/dlpack.h>
#elif __has_include(<dlpack/dlpack.h>)
#  include <dlpack/dlpack.h>
#  define UFUNC_HAVE_DLPACK 1
#endif

#if __has_include(<version>)
#  include <version>
#endif
#if defined(__cpp_lib_mdspan)
#  include <mdspan>
#endif

namespace ufunc {

// ---------------------------------------------------------------------------
// mdspan
namespace detail {

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

}  // namespace detail

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
// DLPack
#if defined(UFUNC_HAVE_DLPACK)

namespace detail::dlpack {

// DLPack's numbers (stable across its versions; the enumerator names are not:
// 0.5 spelled kDLCUDA kDLGPU), so that any dlpack.h from 0.6 on serves.
enum : int { cpu = 1, cuda = 2, cuda_host = 3, cuda_managed = 13 };
enum : int { code_int = 0, code_uint = 1, code_float = 2, code_bfloat = 4, code_complex = 5, code_bool = 6 };

/// DLPack's dtype of element type T (a compile-time error for a type it has none for).
template <class T>
constexpr DLDataType dtype_of() {
  using U = std::remove_cv_t<T>;
  static_assert(std::is_same_v<U, bool> || std::is_integral_v<U> || std::is_same_v<U, float> ||
                    std::is_same_v<U, double> || std::is_same_v<U, __half> || std::is_same_v<U, __nv_bfloat16>,
                "ufunc DLPack: the element type must be bool, an integer, __half, __nv_bfloat16, float or double");
  DLDataType d{};
  d.lanes = 1;
  d.bits = static_cast<std::uint8_t>(8 * sizeof(U));
  if constexpr (std::is_same_v<U, bool>) d.code = code_bool;
  else if constexpr (std::is_same_v<U, __nv_bfloat16>) d.code = code_bfloat;
  else if constexpr (std::is_same_v<U, __half> || std::is_floating_point_v<U>) d.code = code_float;
  else if constexpr (std::is_signed_v<U>) d.code = code_int;
  else d.code = code_uint;
  return d;
}

/// NumPy's name of a DLPack dtype ("float32", "bfloat16", "uint8x4" for lanes).
inline std::string dtype_name(DLDataType d) {
  std::string s;
  switch (d.code) {
    case code_int: s = "int" + std::to_string(d.bits); break;
    case code_uint: s = "uint" + std::to_string(d.bits); break;
    case code_float: s = "float" + std::to_string(d.bits); break;
    case code_bfloat: s = "bfloat" + std::to_string(d.bits); break;
    case code_complex: s = "complex" + std::to_string(d.bits); break;
    case code_bool: s = d.bits == 8 ? "bool" : "bool" + std::to_string(d.bits); break;
    default: s = "type code " + std::to_string(d.code) + " of " + std::to_string(d.bits) + " bits";
  }
  if (d.lanes != 1) s += "x" + std::to_string(d.lanes) + " (" + std::to_string(d.lanes) + " lanes)";
  return s;
}

inline std::string device_name(int type) {
  switch (type) {
    case cpu: return "kDLCPU";
    case cuda: return "kDLCUDA";
    case cuda_host: return "kDLCUDAHost";
    case 4: return "kDLOpenCL";
    case 7: return "kDLVulkan";
    case 8: return "kDLMetal";
    case 10: return "kDLROCM";
    case 11: return "kDLROCMHost";
    case cuda_managed: return "kDLCUDAManaged";
    case 14: return "kDLOneAPI";
    default: return "device type " + std::to_string(type);
  }
}

/// The DLPack device types whose memory `Target` may address: the host target
/// kDLCPU and kDLCUDAHost (pinned host memory); the CUDA target kDLCUDA,
/// kDLCUDAManaged and kDLCUDAHost.
template <class Target>
bool device_ok(int type) {
  if constexpr (target_traits<Target>::is_device) return type == cuda || type == cuda_managed || type == cuda_host;
  return type == cpu || type == cuda_host;
}
template <class Target>
const char* devices_accepted() {
  if constexpr (target_traits<Target>::is_device) return "kDLCUDA, kDLCUDAManaged or kDLCUDAHost";
  return "kDLCPU or kDLCUDAHost";
}

/// The checked view over a DLTensor (every mismatch a value_error naming it).
template <class T, class Target>
array_view<T, Target> view_of(const DLTensor& t, const char* what) {
  using U = std::remove_cv_t<T>;
  const std::string w = what;
  constexpr DLDataType want = dtype_of<T>();
  if (t.dtype.code != want.code || t.dtype.bits != want.bits || t.dtype.lanes != want.lanes)
    throw value_error(w + ": the tensor's dtype is " + dtype_name(t.dtype) + " (code " +
                      std::to_string(t.dtype.code) + ", bits " + std::to_string(t.dtype.bits) + ", lanes " +
                      std::to_string(t.dtype.lanes) + "), the view's element type is " + dtype_name(want) +
                      " (code " + std::to_string(want.code) + ", bits " + std::to_string(want.bits) + ", lanes 1)");
  const int dev = static_cast<int>(t.device.device_type);
  if (!device_ok<Target>(dev))
    throw value_error(w + ": the tensor is on " + device_name(dev) + " (device " + std::to_string(t.device.device_id) +
                      "), and a view of target::" + Target::name + " takes " + devices_accepted<Target>());
  if (t.ndim < 0 || t.ndim > shape::max_rank)
    throw value_error(w + ": the tensor has rank " + std::to_string(t.ndim) + ", and ufunc's maximum rank is " +
                      std::to_string(shape::max_rank));
  if (t.ndim > 0 && t.shape == nullptr)
    throw value_error(w + ": the tensor has rank " + std::to_string(t.ndim) + " and no shape");
  std::vector<index_t> dims(static_cast<std::size_t>(t.ndim)), strides(static_cast<std::size_t>(t.ndim));
  for (int i = 0; i < t.ndim; ++i) {
    if (t.shape[i] < 0)
      throw value_error(w + ": the tensor's dimension " + std::to_string(i) + " is negative (" +
                        std::to_string(t.shape[i]) + ")");
    dims[static_cast<std::size_t>(i)] = t.shape[i];
  }
  const ufunc::shape s(dims);
  if (t.strides) {  // in elements, as the view's
    for (int i = 0; i < t.ndim; ++i) strides[static_cast<std::size_t>(i)] = t.strides[i];
  } else {  // NULL (DLPack < 1.2): row-major
    strides = contiguous_strides(s);
  }
  if (t.data == nullptr && s.count() > 0)
    throw value_error(w + ": the tensor's data pointer is null and its shape " + s.str() + " has " +
                      std::to_string(s.count()) + " elements");
  char* p = static_cast<char*>(t.data) + t.byte_offset;
  if (reinterpret_cast<std::uintptr_t>(p) % alignof(U) != 0)
    throw value_error(w + ": data + byte_offset (" + std::to_string(t.byte_offset) + ") is not aligned to the " +
                      std::to_string(alignof(U)) + " bytes of " + dtype_name(want));
  return array_view<T, Target>(reinterpret_cast<T*>(p), s, strides);
}

#if DLPACK_MAJOR_VERSION >= 1
/// The version and read-only checks of a versioned tensor (the version first:
/// with another major version no other field may be read).
template <class T>
void check_versioned(const DLManagedTensorVersioned* t, const char* what) {
  if (t->version.major != DLPACK_MAJOR_VERSION)
    throw value_error(std::string(what) + ": the tensor is DLPack " + std::to_string(t->version.major) + "." +
                      std::to_string(t->version.minor) + ", and this build reads major version " +
                      std::to_string(DLPACK_MAJOR_VERSION) + " only (dlpack.h " +
                      std::to_string(DLPACK_MAJOR_VERSION) + "." + std::to_string(DLPACK_MINOR_VERSION) + ")");
  if ((t->flags & DLPACK_FLAG_BITMASK_READ_ONLY) && !std::is_const_v<T>)
    throw value_error(std::string(what) +
                      ": the tensor is read-only (DLPACK_FLAG_BITMASK_READ_ONLY): import it as a view of const "
                      "elements (from_dlpack<const T>)");
}
#endif

/// Where memory at `p` of `Target` lives, as a DLPack device.
template <class Target>
DLDevice device_of(const void* p) {
  DLDevice d{};
  d.device_type = static_cast<decltype(d.device_type)>(cpu);
  d.device_id = 0;
  if constexpr (target_traits<Target>::is_device) {
    using rt = runtime<Target>;
    d.device_type = static_cast<decltype(d.device_type)>(cuda);
    d.device_id = rt::current_device();  // an empty array (no pointer): the current device
    if (p) {
      const memory_location l = rt::locate(p);
      switch (l.kind) {
        case memory_location::device: d.device_id = l.device_id; break;
        case memory_location::managed:
          d.device_type = static_cast<decltype(d.device_type)>(cuda_managed);
          d.device_id = l.device_id;
          break;
        case memory_location::pinned_host:
          d.device_type = static_cast<decltype(d.device_type)>(cuda_host);
          d.device_id = 0;
          break;
        default:  // pageable host memory a device addresses (HMM, ATS)
          d.device_type = static_cast<decltype(d.device_type)>(cpu);
          d.device_id = 0;
      }
    }
  }
  (void)p;
  return d;
}

/// An exported tensor and what keeps its memory alive: the managed struct's
/// manager_ctx points here, and its deleter deletes this (once: the consumer
/// calls it once), which destroys the owner.
template <class Managed, class Owner>
struct exported {
  Managed managed{};
  Owner owner;
  std::int64_t dims[ufunc::shape::max_rank] = {};
  std::int64_t steps[ufunc::shape::max_rank] = {};  // the strides

  explicit exported(Owner&& o) : owner(std::move(o)) {}
  static void deleter(Managed* m) noexcept { delete static_cast<exported*>(m->manager_ctx); }
};

template <class Managed, class T, class Target, class Owner>
Managed* export_view(const array_view<T, Target>& v, Owner&& owner) {
  using E = exported<Managed, std::decay_t<Owner>>;
  const DLDevice dev = device_of<Target>(v.data());  // may throw: before anything is taken
  E* e = new E(std::forward<Owner>(owner));
  DLTensor& t = e->managed.dl_tensor;
  t.data = const_cast<void*>(static_cast<const void*>(v.data()));
  t.device = dev;
  t.ndim = v.ndim();
  t.dtype = dtype_of<T>();
  for (int i = 0; i < v.ndim(); ++i) {
    e->dims[i] = v.shape()[i];
    e->steps[i] = v.stride(i);
  }
  t.shape = e->dims;
  t.strides = e->steps;  // never NULL (DLPack 1.2 requires them)
  t.byte_offset = 0;
  e->managed.manager_ctx = e;
  e->managed.deleter = &E::deleter;
  return &e->managed;
}

/// Takes the tensor `t` points to and calls its deleter (if it has one) once.
template <class Managed>
void drop(void* t) noexcept {
  auto* m = static_cast<Managed*>(t);
  if (m && m->deleter) m->deleter(m);
}

}  // namespace detail::dlpack

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
