// The CUDA runtime the library uses outside its launchers and kernels: devices
// (count, properties, the current device and a guard that restores it, the
// attributes launchers size grids with, read once per device), streams,
// events, pointer queries and copies between devices. Public headers reach the
// CUDA runtime only through `runtime<target::cuda>` (as
// `runtime<target::device>`, or `runtime<Target>` in code templated on the
// target); the host backend's counterparts are in detail/host/runtime.hpp.
// Error checking stays with error.hpp's UFUNC_CUDA_CHECK. Exists in
// CUDA-backend builds only (empty otherwise), so any build may include it.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "../../config.hpp"
#include "../../error.hpp"

#if defined(UFUNC_BACKEND_CUDA)

namespace ufunc::detail {

template <>
struct runtime<target::cuda> {
  // ---- Devices

  /// Visible devices; 0 without a driver or a device (the error is cleared).
  static int device_count() noexcept {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {  // no driver or no device: nothing to list
      (void)cudaGetLastError();
      n = 0;
    }
    return n;
  }

  /// The ids a default-constructed device_set holds: every visible device.
  static std::vector<int> default_device_ids() {
    std::vector<int> ids;
    const int n = device_count();
    for (int i = 0; i < n; ++i) ids.push_back(i);
    return ids;
  }

  /// Fills `d` (device.hpp's device_info, whose `id` the caller sets) with the
  /// properties of device `i`.
  template <class Info>
  static void describe_device(int i, Info& d) {
    cudaDeviceProp p{};
    UFUNC_CUDA_CHECK(cudaGetDeviceProperties(&p, i));
    d.name = p.name;
    d.total_memory = p.totalGlobalMem;
    d.multiprocessors = p.multiProcessorCount;
    d.cc_major = p.major;
    d.cc_minor = p.minor;
    UFUNC_CUDA_CHECK(cudaDeviceGetAttribute(&d.memory_clock_khz, cudaDevAttrMemoryClockRate, i));
    UFUNC_CUDA_CHECK(cudaDeviceGetAttribute(&d.memory_bus_bits, cudaDevAttrGlobalMemoryBusWidth, i));
  }

  /// Blocks until all work on the current device has finished.
  static void device_synchronize() { UFUNC_CUDA_CHECK(cudaDeviceSynchronize()); }

  /// Makes `dev` the current device for its lifetime and restores the one
  /// current before (a failure to restore, e.g. at teardown, is cleared).
  class device_guard {
   public:
    explicit device_guard(int dev) {
      UFUNC_CUDA_CHECK(cudaGetDevice(&prev_));
      if (prev_ != dev) UFUNC_CUDA_CHECK(cudaSetDevice(dev));
      active_ = prev_ != dev;
    }
    device_guard(const device_guard&) = delete;
    device_guard& operator=(const device_guard&) = delete;
    ~device_guard() {
      if (active_ && cudaSetDevice(prev_) != cudaSuccess) (void)cudaGetLastError();
    }

   private:
    int prev_ = 0;
    bool active_ = false;
  };

  /// Everything the library keeps per device, in one place: read or made on
  /// first use per device, then kept for the process (launch.hpp reads it as
  /// `cuda_launch::current_device()`). The memory pool is ufunc's own
  /// stream-ordered pool (cudaMemPoolCreate; memory.hpp allocates from it), set
  /// to keep freed memory cached: not the device's default pool, whose release
  /// threshold is process-wide state that cudaMallocAsync users beside ufunc
  /// (PyTorch's async allocator, user code) rely on and that stays untouched.
  /// Never destroyed: arrays freed during static destruction still find it, and
  /// the driver reclaims it with the context. The per-kernel facts (resident
  /// blocks at a block size; dynamic shared memory allowed) are asked of the
  /// runtime once and kept under the context's lock. (The reductions' scratch,
  /// detail/cuda/scratch.hpp, is per host thread as well as per device, so it
  /// is kept thread-local instead.)
  struct device_context {
    int sm_count = 0;              ///< multiprocessors
    int smem_optin = 0;            ///< most shared memory a block may opt in to (bytes)
    cudaMemPool_t pool = nullptr;  ///< the library's own memory pool on this device
    /// Whether the wgmma matmul kernel runs here: 0 not yet asked, 1 yes, 2 no
    /// (linalg_launch.hpp probes it; threads that race ask twice, same answer).
    std::atomic<int> wgmma{0};
    struct occupancy_fact {
      const void* fn;
      int block, blocks;
    };
    struct smem_fact {
      const void* fn;
      std::size_t bytes;
    };
    std::mutex m;  ///< guards the two lists below
    std::vector<occupancy_fact> occupancy;
    std::vector<smem_fact> smem_allowed;
    /// What the reductions keep per stream (scratch.hpp): the counter their
    /// last block finishes on (finish_counters; in a device block made on first
    /// use) and a reusable temporary (stream_temp: its block, bytes, whether a
    /// call holds it).
    struct stream_slot {
      unsigned* counter = nullptr;
      void* block = nullptr;
      std::size_t bytes = 0;
      bool held = false;
    };
    /// Each stream's slot by cudaStreamGetId, the counters' block, how many
    /// streams have a temporary block; under counters_m.
    std::mutex counters_m;
    unsigned* counters = nullptr;
    std::unordered_map<unsigned long long, stream_slot> counter_of;
    unsigned stream_blocks = 0;
  };

  static constexpr int max_devices = 64;

  /// Device `dev`'s context, made on first use. Safe to call from several host
  /// threads at once.
  static device_context& context(int dev) {
    static std::array<device_context, max_devices> cache;
    static std::array<std::once_flag, max_devices> once;
    if (dev < 0 || dev >= max_devices) throw cuda_error("ufunc: device ordinal out of range", 0);
    device_context& c = cache[static_cast<std::size_t>(dev)];
    std::call_once(once[static_cast<std::size_t>(dev)], [dev, &c] {
      UFUNC_CUDA_CHECK(cudaDeviceGetAttribute(&c.sm_count, cudaDevAttrMultiProcessorCount, dev));
      UFUNC_CUDA_CHECK(cudaDeviceGetAttribute(&c.smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
      cudaMemPoolProps props{};
      props.allocType = cudaMemAllocationTypePinned;
      props.handleTypes = cudaMemHandleTypeNone;
      props.location.type = cudaMemLocationTypeDevice;
      props.location.id = dev;
      UFUNC_CUDA_CHECK(cudaMemPoolCreate(&c.pool, &props));
      std::uint64_t keep = UINT64_MAX;
      UFUNC_CUDA_CHECK(cudaMemPoolSetAttribute(c.pool, cudaMemPoolAttrReleaseThreshold, &keep));
    });
    return c;
  }

  /// The current device's context.
  static device_context& current_context() { return context(current_device()); }

  /// The current device.
  static int current_device() {
    int dev = 0;
    UFUNC_CUDA_CHECK(cudaGetDevice(&dev));
    return dev;
  }

  /// What the runtime knows of `p` (memory type, device): cudaPointerGetAttributes.
  static cudaPointerAttributes pointer_attributes(const void* p) {
    cudaPointerAttributes a{};
    UFUNC_CUDA_CHECK(cudaPointerGetAttributes(&a, p));
    return a;
  }


  /// Where `p` lives: device or managed memory (and its device), pinned host
  /// memory, or pageable host memory (also what a device addresses through HMM/ATS).
  static memory_location locate(const void* p) {
    const cudaPointerAttributes a = pointer_attributes(p);
    switch (a.type) {
      case cudaMemoryTypeDevice: return {memory_location::device, a.device};
      case cudaMemoryTypeManaged: return {memory_location::managed, a.device};
      case cudaMemoryTypeHost: return {memory_location::pinned_host, 0};
      default: return {memory_location::host, 0};
    }
  }

  /// The device holding `p` (-1: null, or not device memory).
  static int device_of(const void* p) {
    if (!p) return -1;
    const memory_location l = locate(p);
    return l.kind == memory_location::device ? l.device_id : -1;
  }

  /// Free and total memory of the current device (bytes).
  static void memory_info(std::size_t& free_b, std::size_t& total_b) {
    UFUNC_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  }

  // ---- Streams

  /// A new stream: cudaStreamNonBlocking or cudaStreamDefault.
  static cudaStream_t stream_create(bool non_blocking) {
    cudaStream_t s = nullptr;
    UFUNC_CUDA_CHECK(cudaStreamCreateWithFlags(&s, non_blocking ? cudaStreamNonBlocking : cudaStreamDefault));
    return s;
  }
  /// Never throws (destructors); a failure, e.g. at process teardown, is cleared.
  static void stream_destroy(cudaStream_t s) noexcept {
    if (s && cudaStreamDestroy(s) != cudaSuccess) (void)cudaGetLastError();
  }
  static void stream_synchronize(cudaStream_t s) { UFUNC_CUDA_CHECK(cudaStreamSynchronize(s)); }
  /// True when all work queued on `s` has finished (does not block).
  static bool stream_ready(cudaStream_t s) {
    const cudaError_t err = cudaStreamQuery(s);
    if (err == cudaErrorNotReady) {
      (void)cudaGetLastError();  // not an error: the stream is busy
      return false;
    }
    UFUNC_CUDA_CHECK(err);
    return true;
  }
  /// Waits for `stream_of(d)` with device d current, for every d in `ids`;
  /// errors are reported after all of them were waited for (the first one).
  template <class StreamOf>
  static void synchronize_streams(const std::vector<int>& ids, StreamOf&& stream_of) {
    cudaError_t first = cudaSuccess;
    for (int d : ids) {
      device_guard g(d);
      const cudaError_t e = cudaStreamSynchronize(stream_of(d));
      if (e != cudaSuccess && first == cudaSuccess) first = e;
    }
    UFUNC_CUDA_CHECK(first);
  }

  // ---- Events

  /// A new event: cudaEventDefault (timing) or cudaEventDisableTiming.
  static cudaEvent_t event_create(bool timing) {
    cudaEvent_t e = nullptr;
    UFUNC_CUDA_CHECK(cudaEventCreateWithFlags(&e, timing ? cudaEventDefault : cudaEventDisableTiming));
    return e;
  }
  /// Never throws (destructors); a failure is cleared.
  static void event_destroy(cudaEvent_t e) noexcept {
    if (e && cudaEventDestroy(e) != cudaSuccess) (void)cudaGetLastError();
  }
  /// Never throws; a failure is ignored, not cleared (the streamed reductions'
  /// fold event, reduce.hpp).
  static void event_release(cudaEvent_t e) noexcept {
    if (e) (void)cudaEventDestroy(e);
  }
  static void event_record(cudaEvent_t e, cudaStream_t s) { UFUNC_CUDA_CHECK(cudaEventRecord(e, s)); }
  static void event_synchronize(cudaEvent_t e) { UFUNC_CUDA_CHECK(cudaEventSynchronize(e)); }
  /// True when the work before the event's latest record has finished.
  static bool event_ready(cudaEvent_t e) {
    const cudaError_t err = cudaEventQuery(e);
    if (err == cudaErrorNotReady) {
      (void)cudaGetLastError();
      return false;
    }
    UFUNC_CUDA_CHECK(err);
    return true;
  }
  /// Milliseconds between two completed events.
  static double event_elapsed_ms(cudaEvent_t start, cudaEvent_t stop) {
    float ms = 0.0f;
    UFUNC_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    return static_cast<double>(ms);
  }
  /// Work issued to `s` from now on waits for `e`'s latest recording.
  static void stream_wait_event(cudaStream_t s, cudaEvent_t e) { UFUNC_CUDA_CHECK(cudaStreamWaitEvent(s, e, 0)); }
  /// The same for an event object (event.hpp's basic_event<target::cuda>).
  template <class Event>
  static void stream_wait(cudaStream_t s, const Event& e) {
    stream_wait_event(s, e.get());
  }

  // ---- Copies between devices

  /// Copies `bytes` between any two places (peer devices, host) on `s`.
  /// Between two devices it names both (cudaMemcpyPeerAsync): arrays come from
  /// each device's stream-ordered pool, whose memory is not mapped into the
  /// peers (no cudaMemPoolSetAccess), and cudaMemcpyDefault then fails with
  /// cudaErrorInvalidValue; the peer copy goes over NVLink/PCIe or is staged.
  static void copy_any(void* dst, const void* src, std::size_t bytes, cudaStream_t s) {
    if (!bytes) return;
    const int dd = device_of(dst), sd = device_of(src);
    if (dd >= 0 && sd >= 0 && dd != sd)
      UFUNC_CUDA_CHECK(cudaMemcpyPeerAsync(dst, dd, src, sd, bytes, s));
    else
      UFUNC_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, s));
  }
};

}  // namespace ufunc::detail

#endif  // UFUNC_BACKEND_CUDA
