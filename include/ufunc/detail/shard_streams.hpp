// The per-device pieces of sharded arrays: a guard that makes a device current,
// the one stream per device the sharded operations use (shard_stream), and
// the wait for every device's stream (drain).
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "../config.hpp"
#include "../error.hpp"
#include "../stream.hpp"

namespace ufunc::detail {

/// Makes `dev` the current CUDA device for its lifetime and restores the one
/// current before (nothing on the host target).
template <class Target>
class device_guard {
 public:
  explicit device_guard(int dev) : g_(dev) {}
  device_guard(const device_guard&) = delete;
  device_guard& operator=(const device_guard&) = delete;

 private:
  typename runtime<Target>::device_guard g_;
};

/// The stream the sharded operations use on device `dev`: one non-blocking
/// stream per device for the process, created on first use (under a
/// once_flag, so threads may race to it) and never destroyed (arrays freed at
/// exit are freed on it). The host target's is the placeholder stream.
template <class Target>
stream_ref shard_stream(int dev) {
  if constexpr (target_traits<Target>::is_device) {
    constexpr int max_devices = 64;
    static cudaStream_t streams[max_devices] = {};
    static std::once_flag once[max_devices];
    if (dev < 0 || dev >= max_devices) throw value_error("ufunc: device " + std::to_string(dev) + " is out of range");
    std::call_once(once[dev], [dev] {
      device_guard<Target> g(dev);
      streams[dev] = runtime<Target>::stream_create(true);
    });
    return stream_ref(streams[dev]);
  }
  (void)dev;
  return stream_ref();
}

/// Waits for the work queued on `s` by Target's calls: the CUDA stream's
/// synchronize, nothing for the host target (its work is done when a call
/// returns). Code for either target waits through this, not s.synchronize(),
/// which is the CUDA stream's in a CUDA build: host shards then never touch the
/// CUDA runtime (a CUDA build's host-target program on a machine without a GPU).
template <class Target>
void sync_stream(stream_ref s) {
  runtime<Target>::stream_synchronize(s.get());
}

/// Waits for the sharded stream of every device in `ids` (errors are reported
/// after all of them were waited for: the first one is thrown).
template <class Target>
void drain(const std::vector<int>& ids) {
  runtime<Target>::synchronize_streams(ids, [](int d) { return shard_stream<Target>(d).get(); });
}

}  // namespace ufunc::detail
