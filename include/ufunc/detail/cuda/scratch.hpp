// Device temporaries of the CUDA launchers: a stream-ordered temporary freed on
// scope exit, and the per-thread scratch block (with a pinned result slot) that
// calls returning a host value reuse instead of allocating.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>

#include "../../error.hpp"
#include "../../stream.hpp"
#include "../memory.hpp"

namespace ufunc::detail {

/// Device memory for calls that synchronise before they return (a reduction to a
/// host scalar): kept per thread and device and reused, so such a call costs no
/// allocation; plus a pinned host slot for the result's copy.
class reduce_scratch {
 public:
  static reduce_scratch& get() {
    thread_local std::array<reduce_scratch, 64> per_device;
    int dev = 0;
    UFUNC_CUDA_CHECK(cudaGetDevice(&dev));
    return per_device.at(static_cast<std::size_t>(dev));
  }
  void* device(std::size_t bytes, stream_ref s) {
    if (bytes > bytes_) {
      memory<target::cuda>::deallocate(dev_, s);  // its last user synchronised
      dev_ = nullptr;
      bytes_ = 0;
      const std::size_t want = std::max<std::size_t>(bytes, 1 << 16);
      dev_ = memory<target::cuda>::allocate(want, s, false);  // kept past any caller's resource: the pool's
      bytes_ = want;
    }
    return dev_;
  }
  void* pinned() {
    if (!host_) {
      allocation_hook_before("pinned host memory", 256);
      UFUNC_CUDA_CHECK(cudaMallocHost(&host_, 256));
      allocation_hook_made();
    }
    return host_;
  }
  reduce_scratch() = default;
  reduce_scratch(const reduce_scratch&) = delete;
  reduce_scratch& operator=(const reduce_scratch&) = delete;
  ~reduce_scratch() {
    memory<target::cuda>::deallocate(dev_, {});
    if (host_) {
      allocation_hook_freed();
      if (cudaFreeHost(host_) != cudaSuccess) (void)cudaGetLastError();  // at teardown
    }
  }

 private:
  void* dev_ = nullptr;
  std::size_t bytes_ = 0;
  void* host_ = nullptr;
};

/// Stream-ordered device temporary, freed (stream-ordered) on scope exit.
class device_temp {
 public:
  device_temp(std::size_t bytes, stream_ref s) : p_(memory<target::cuda>::allocate(bytes, s)), s_(s) {}
  ~device_temp() { memory<target::cuda>::deallocate(p_, s_); }
  device_temp(const device_temp&) = delete;
  device_temp& operator=(const device_temp&) = delete;
  void* get() const { return p_; }

 private:
  void* p_;
  stream_ref s_;
};

/// Bytes reserved in front of CUB's temporary storage for one result.
inline constexpr std::size_t result_slot = 256;

}  // namespace ufunc::detail
