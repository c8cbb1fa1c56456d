// Device temporaries of the CUDA launchers: a stream-ordered temporary freed on
// scope exit, the per-thread scratch block (with a pinned result slot) that
// calls returning a host value reuse instead of allocating, and the per-stream
// counters of one-kernel whole reductions.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <mutex>
#include <optional>

#include "../../error.hpp"
#include "../../stream.hpp"
#include "../memory.hpp"
#include "runtime.hpp"

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

/// Counters at zero for one-kernel whole reductions: the last block to finish
/// (counted on one of these) reduces the blocks' partials and sets the counter
/// back to zero, saving the second pass's launch. One counter per stream, by
/// cudaStreamGetId (never reused within a process; the per-thread default
/// stream has one per thread): kernels on one stream run one after another, so
/// no two kernels use a counter at once. None for a stream being captured (a
/// graph may be replayed on any stream, beside this one), nor beyond `slots`
/// streams a device; the caller then launches a second pass. Kept in the
/// device's context (runtime.hpp): a block of `slots` 16-byte slots made on
/// first use, kept for the process (256 KiB). A slot is the counter, 4 spare
/// bytes and a 64-bit word at zero (kernels/grid_dependency.cuh's finish_word)
/// that a kernel's blocks may fold their partials into with atomics; the last
/// block sets it back to zero too.
struct finish_counters {
  using slot = runtime<target::cuda>::device_context::stream_slot;
  static constexpr std::size_t slots = 16384;
  static constexpr std::size_t slot_counters = 4;  ///< unsigned per slot (16 bytes)
  static_assert(slot_counters * sizeof(unsigned) == 2 * sizeof(unsigned long long),
                "a slot: the counter, 4 spare bytes, finish_word's 8 (kernels/grid_dependency.cuh)");
  /// Stream `s`'s slot on the current device (its counter, its stream_temp
  /// block), or nullptr: a stream being captured, or `slots` streams already
  /// have one. The slot lives as long as the process.
  static slot* slot_of(stream_ref s) {
    cudaStreamCaptureStatus cap = cudaStreamCaptureStatusNone;
    unsigned long long id = 0;
    if (cudaStreamIsCapturing(s.get(), &cap) != cudaSuccess || cap != cudaStreamCaptureStatusNone ||
        cudaStreamGetId(s.get(), &id) != cudaSuccess) {
      (void)cudaGetLastError();  // e.g. the legacy stream while another thread captures
      return nullptr;
    }
    auto& c = runtime<target::cuda>::current_context();
    std::lock_guard<std::mutex> lock(c.counters_m);
    const auto it = c.counter_of.find(id);
    if (it != c.counter_of.end()) return &it->second;
    if (c.counter_of.size() >= slots) return nullptr;
    if (!c.counters) c.counters = make_block();
    slot e;
    e.counter = c.counters + slot_counters * c.counter_of.size();
    return &c.counter_of.emplace(id, e).first->second;  // (nodes stay put on rehash)
  }

 private:
  // Zeroed on a private stream and waited for: later kernels on any stream
  // then see zeros. Never freed (the driver reclaims it with the context).
  static unsigned* make_block() {
    cudaStream_t st = nullptr;
    UFUNC_CUDA_CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    constexpr std::size_t bytes = slots * slot_counters * sizeof(unsigned);
    auto* p = static_cast<unsigned*>(memory<target::cuda>::allocate(bytes, stream_ref(st), false));
    const cudaError_t e = cudaMemsetAsync(p, 0, bytes, st);
    const cudaError_t w = cudaStreamSynchronize(st);
    (void)cudaStreamDestroy(st);
    UFUNC_CUDA_CHECK(e);
    UFUNC_CUDA_CHECK(w);
    return p;
  }
};

/// Device memory for work enqueued on stream `s` during one call, as
/// device_temp; but a small one (at most `block_max` bytes) on a stream with a
/// slot (finish_counters::slot_of) is the stream's own block, reused by the
/// stream's next call instead of allocated and freed (about 1.4 us of host time
/// a call on an H200's host, most of a one-kernel reduction's overhead beside
/// its launch). Kernels on one stream run in order, so the next call's work
/// starts after this one's: only work on `s` may use it. A call that finds the
/// block held (another thread's call on the same stream, or a second
/// temporary of the same call) allocates, as do calls while a memory resource
/// is set (ufunc::set_memory_resource: temporaries come from it). At most
/// `max_blocks` streams a device keep a block (kept for the process: at most
/// 4 MiB a device); others allocate.
class stream_temp {
 public:
  static constexpr std::size_t block_max = std::size_t(128) << 10;
  static constexpr unsigned max_blocks = 32;
  /// With the stream's slot when the caller has it (or nullptr: allocated).
  stream_temp(std::size_t bytes, stream_ref s, finish_counters::slot* e) : s_(s) {
    if (e && fits(bytes)) p_ = take(e, bytes);
    if (!p_) p_ = owned_.emplace(bytes, s).get();
  }
  /// Finds the stream's slot itself, only when the block could serve.
  stream_temp(std::size_t bytes, stream_ref s) : s_(s) {
    if (fits(bytes))
      if (finish_counters::slot* e = finish_counters::slot_of(s)) p_ = take(e, bytes);
    if (!p_) p_ = owned_.emplace(bytes, s).get();
  }
  ~stream_temp() {
    if (!held_) return;  // (an allocated one is freed by owned_)
    std::lock_guard<std::mutex> lock(ctx_->counters_m);
    held_->held = false;
  }
  stream_temp(const stream_temp&) = delete;
  stream_temp& operator=(const stream_temp&) = delete;
  void* get() const { return p_; }

 private:
  static bool fits(std::size_t bytes) {
    return bytes > 0 && bytes <= block_max && !resource_registry::get().any();
  }
  void* take(finish_counters::slot* e, std::size_t bytes) {
    auto& c = runtime<target::cuda>::current_context();
    bool grow = false, first = false;
    {
      std::lock_guard<std::mutex> lock(c.counters_m);
      if (e->held) return nullptr;
      if (e->bytes < bytes) {
        first = !e->block;
        if (first && c.stream_blocks >= max_blocks) return nullptr;
        if (first) ++c.stream_blocks;
        grow = true;
      }
      e->held = true;  // (ours until the destructor: grown below without the lock)
    }
    if (grow) {
      const std::size_t want = std::max<std::size_t>(16 << 10, (bytes + 4095) / 4096 * 4096);
      void* q = nullptr;
      try {
        q = memory<target::cuda>::allocate(want, s_, false);  // the pool's, as reduce_scratch's
      } catch (...) {
        std::lock_guard<std::mutex> lock(c.counters_m);
        e->held = false;
        if (first) --c.stream_blocks;
        throw;
      }
      memory<target::cuda>::deallocate(e->block, s_);  // after the stream's earlier work
      std::lock_guard<std::mutex> lock(c.counters_m);
      e->block = q;
      e->bytes = want;
    }
    held_ = e;
    ctx_ = &c;
    return e->block;
  }
  stream_ref s_;
  void* p_ = nullptr;
  std::optional<device_temp> owned_;
  finish_counters::slot* held_ = nullptr;
  runtime<target::cuda>::device_context* ctx_ = nullptr;
};

/// Bytes reserved in front of CUB's temporary storage for one result.
inline constexpr std::size_t result_slot = 256;

}  // namespace ufunc::detail
