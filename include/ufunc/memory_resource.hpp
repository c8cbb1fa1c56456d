// Device memory from the caller's allocator: a memory resource in the sense of
// libcu++'s cuda::mr concepts (an RMM pool, a framework's caching allocator, a
// counting wrapper) serves every device allocation ufunc makes on a device.
#pragma once

#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>

#include "config.hpp"
#include "detail/memory.hpp"
#include "detail/resource_traits.hpp"  // the resource checks (detail::)
#include "error.hpp"
#include "stream.hpp"

namespace ufunc {


/// Makes every device allocation ufunc makes on `device` from now on (arrays,
/// results, temporaries, the chunk buffers of streamed calls; default: the
/// current device) come from `r` instead of the library's own pool:
/// - CUDA backend: `r.allocate_async(bytes, alignment, cuda::stream_ref)` and
///   `r.deallocate_async(p, bytes, alignment, cuda::stream_ref)` (libcu++'s
///   `cuda::mr::async_resource`; RMM's device resources have them), on the
///   stream of the call that allocates or frees;
/// - host backend (its memory is the device memory): `r.allocate(bytes,
///   alignment)` and `r.deallocate(p, bytes, alignment)` (`cuda::mr::resource`).
/// A resource with all four works on both. The alignment asked is 256 bytes,
/// and a pointer not aligned to it is refused (value_error); a std::bad_alloc
/// from `r` reaches the caller as ufunc::out_of_memory. `r` is held by
/// reference: it must outlive every allocation made from it, and memory it made
/// is freed through it even after another resource is set or the default is
/// restored. Host arrays of a CUDA build, page-locked memory (pinned_array, the
/// staging buffers) and the one block ufunc keeps between calls (the per-thread
/// scratch of reductions that return a host value) do not use it. Thread-safe; takes effect for
/// allocations that start after it returns. Throws value_error for a device
/// that does not exist (-1, the default, is the current device).
template <class Resource>
void set_memory_resource(Resource& r, int device = -1) {
  static_assert(!std::is_const_v<Resource>, "ufunc::set_memory_resource: pass a non-const resource");
  const int dev = detail::resource_device(device);
  detail::resource_handle h;
  h.obj = static_cast<void*>(&r);
  if constexpr (detail::target_traits<target::device>::is_device) {
#if UFUNC_HAS_CUDA_STREAM_REF
    static_assert(detail::has_async_resource_calls<Resource>::value,
                  "ufunc::set_memory_resource: the CUDA backend needs void* allocate_async(std::size_t bytes, "
                  "std::size_t alignment, cuda::stream_ref) and void deallocate_async(void*, std::size_t bytes, "
                  "std::size_t alignment, cuda::stream_ref) (libcu++'s cuda::mr::async_resource)");
    h.alloc = [](void* o, std::size_t b, std::size_t a, cudaStream_t s) -> void* {
      return static_cast<Resource*>(o)->allocate_async(b, a, ::cuda::stream_ref(s));
    };
    h.dealloc = [](void* o, void* p, std::size_t b, std::size_t a, cudaStream_t s) {
      static_cast<Resource*>(o)->deallocate_async(p, b, a, ::cuda::stream_ref(s));
    };
#else
    static_assert(sizeof(Resource) == 0, "ufunc::set_memory_resource: needs libcu++'s <cuda/stream_ref>");
#endif
  } else {
    static_assert(detail::has_resource_calls<Resource>::value,
                  "ufunc::set_memory_resource: the host backend needs void* allocate(std::size_t bytes, std::size_t "
                  "alignment) and void deallocate(void*, std::size_t bytes, std::size_t alignment) (libcu++'s "
                  "cuda::mr::resource)");
    h.alloc = [](void* o, std::size_t b, std::size_t a, cudaStream_t) -> void* {
      return static_cast<Resource*>(o)->allocate(b, a);
    };
    h.dealloc = [](void* o, void* p, std::size_t b, std::size_t a, cudaStream_t) {
      static_cast<Resource*>(o)->deallocate(p, b, a);
    };
  }
  detail::resource_registry::get().set(dev, h);
}

/// Back to the library's own pool on `device` (default: the current device) for
/// allocations from now on; memory the resource made is still freed through it.
inline void reset_memory_resource(int device = -1) {
  detail::resource_registry::get().set(detail::resource_device(device), detail::resource_handle{});
}

}  // namespace ufunc
