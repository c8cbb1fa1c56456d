// The host backend's runtime: the counterparts of detail/cuda/runtime.hpp that
// code common to both backends calls (as `runtime<target::device>` or
// `runtime<Target>`). The host has no devices, streams or events of its own:
// work is synchronous on the calling thread, device ids only label host
// shards, and a stream is a placeholder handle; so these do nothing, or say so.
#pragma once

#include <cstddef>
#include <vector>

#include "../../config.hpp"

namespace ufunc::detail {

template <>
struct runtime<target::host> {
  // ---- Devices

  /// -1: no devices to count, so no bound on device ids (they only label host
  /// shards); `devices()` lists none.
  static constexpr int device_count() noexcept { return -1; }
  /// The ids a default-constructed device_set holds: one host shard, {0}.
  static std::vector<int> default_device_ids() { return {0}; }
  /// Never called (there is no device to describe).
  template <class Info>
  static void describe_device(int, Info&) noexcept {}
  /// Nothing to wait for: host work is done when its call returns.
  static void device_synchronize() noexcept {}
  /// Nothing to make current.
  class device_guard {
   public:
    explicit device_guard(int dev) noexcept { (void)dev; }
    device_guard(const device_guard&) = delete;
    device_guard& operator=(const device_guard&) = delete;
  };
  /// -1: no pointer is device memory.
  static int device_of(const void* p) noexcept {
    (void)p;
    return -1;
  }
  /// No device memory: 0 free of 0.
  static void memory_info(std::size_t& free_b, std::size_t& total_b) noexcept { free_b = total_b = 0; }

  // ---- Streams (placeholders: the null handle, always ready)

  static cudaStream_t stream_create(bool non_blocking) noexcept {
    (void)non_blocking;
    return nullptr;
  }
  static void stream_destroy(cudaStream_t) noexcept {}
  static void stream_synchronize(cudaStream_t) noexcept {}
  static bool stream_ready(cudaStream_t) noexcept { return true; }
  template <class StreamOf>
  static void synchronize_streams(const std::vector<int>&, StreamOf&&) noexcept {}
  /// Host work is ordered by the calling thread: no wait to enqueue.
  template <class Event>
  static void stream_wait(cudaStream_t, const Event&) noexcept {}
};

}  // namespace ufunc::detail
