// The DLPack half of interop.hpp: DLTensor <-> array_view checks and
// conversions, the device of a pointer as a DLPack device, and the exported
// tensors' owners. Defines UFUNC_HAVE_DLPACK where <dlpack/dlpack.h> is found
// (or requires it where UFUNC_HAVE_DLPACK is defined); empty otherwise.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "../array.hpp"
#include "../array_view.hpp"
#include "../config.hpp"
#include "../error.hpp"
#include "../shape.hpp"
#include "cuda/runtime.hpp"  // runtime<target::cuda>: the device of a pointer (CUDA builds only)
#include "element.hpp"

#if defined(UFUNC_HAVE_DLPACK)
#  include <dlpack/dlpack.h>
#elif __has_include(<dlpack/dlpack.h>)
#  include <dlpack/dlpack.h>
#  define UFUNC_HAVE_DLPACK 1
#endif

#if defined(UFUNC_HAVE_DLPACK)
namespace ufunc::detail::dlpack {

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

}  // namespace ufunc::detail::dlpack
#endif  // UFUNC_HAVE_DLPACK
