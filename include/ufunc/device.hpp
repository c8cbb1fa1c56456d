// Device discovery and whole-device synchronisation, like Numba's
// cuda.list_devices() and cuda.synchronize().
#pragma once

#include <string>
#include <vector>

#include "config.hpp"
#include "error.hpp"
#include "detail/memory.hpp"
#include "stream.hpp"

namespace ufunc {

/// One CUDA device as `devices()` reports it.
struct device_info {
  int id = 0;
  std::string name;
  std::size_t total_memory = 0;  ///< bytes of global memory
  int multiprocessors = 0;
  int cc_major = 0, cc_minor = 0;  ///< compute capability
  int memory_clock_khz = 0;        ///< peak memory clock
  int memory_bus_bits = 0;         ///< memory bus width
  /// Theoretical peak memory bandwidth: clock × bus width × 2 (double data rate).
  double peak_bandwidth() const { return 2.0 * memory_clock_khz * 1e3 * (memory_bus_bits / 8.0); }
};

/// The CUDA devices visible to this process (empty when there are none, or on
/// the host backend, which has no devices).
inline std::vector<device_info> devices() {
  using rt = detail::runtime<target::device>;
  std::vector<device_info> out;
  const int n = rt::device_count();  // no driver or no device: 0; the host backend: -1, none to list
  for (int i = 0; i < n; ++i) {
    device_info d;
    d.id = i;
    rt::describe_device(i, d);
    out.push_back(std::move(d));
  }
  return out;
}

/// True when at least one CUDA device can run this build's kernels.
inline bool device_available() { return !devices().empty(); }

/// Blocks until all work on the current device has finished (no-op on the host backend).
inline void synchronize() { detail::runtime<target::device>::device_synchronize(); }


/// Bounds the device memory a call that streams host data may take for its
/// chunk buffers (see docs/streaming.md): host data larger
/// than this is processed in chunks instead of failing. 0 restores the default
/// (what the device has free when the call starts, less a tenth, at least
/// 256 MiB). Device-resident arrays are not counted and not affected. Applies
/// process-wide, to calls that start after it returns; thread-safe.
inline void set_device_memory_limit(std::size_t bytes) noexcept { detail::device_limit_setting().store(bytes); }

/// The limit a streamed call would plan with now: the one set, else the default
/// (on the host backend, which copies nothing to a device, SIZE_MAX).
inline std::size_t device_memory_limit() { return detail::device_limit_now(); }

}  // namespace ufunc
