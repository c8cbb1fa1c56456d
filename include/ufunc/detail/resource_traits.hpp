// The checks behind ufunc::set_memory_resource (memory_resource.hpp): which
// resource interface a type offers, and the device a resource is set for.
#pragma once

#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>

#include "../config.hpp"
#include "../error.hpp"
#include "../stream.hpp"  // UFUNC_HAS_CUDA_STREAM_REF, cuda::stream_ref
#include "memory.hpp"

namespace ufunc {
namespace detail {
template <class R, class = void>
struct has_async_resource_calls : std::false_type {};
#if UFUNC_HAS_CUDA_STREAM_REF
template <class R>
struct has_async_resource_calls<
    R, std::enable_if_t<std::is_same_v<decltype(std::declval<R&>().allocate_async(std::size_t(), std::size_t(),
                                                                                   std::declval<::cuda::stream_ref>())),
                                       void*>,
                        decltype(std::declval<R&>().deallocate_async(std::declval<void*>(), std::size_t(), std::size_t(),
                                                                     std::declval<::cuda::stream_ref>()))>>
    : std::true_type {};
#endif
template <class R, class = void>
struct has_resource_calls : std::false_type {};
template <class R>
struct has_resource_calls<
    R, std::enable_if_t<std::is_same_v<decltype(std::declval<R&>().allocate(std::size_t(), std::size_t())), void*>,
                        decltype(std::declval<R&>().deallocate(std::declval<void*>(), std::size_t(), std::size_t()))>>
    : std::true_type {};

template <class Target = target::device>
int resource_device(int device) {
  int dev = device;
  if constexpr (target_traits<Target>::is_device) {
    if (dev == -1) dev = runtime<Target>::current_device();
    const int n = runtime<Target>::device_count();
    if (dev < 0 || dev >= n || dev >= resource_registry::max_devices)
      throw value_error("ufunc::set_memory_resource: device " + std::to_string(dev) + " does not exist (" +
                        std::to_string(n) + " visible)");
  } else {
    if (dev == -1) dev = 0;
    if (dev != 0)
      throw value_error("ufunc::set_memory_resource: device " + std::to_string(dev) +
                        " does not exist (the host backend has device 0)");
  }
  return dev;
}
}  // namespace detail
}  // namespace ufunc
