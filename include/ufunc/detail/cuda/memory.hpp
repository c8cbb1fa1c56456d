// The CUDA backend's memory: memory<target::cuda> (stream-ordered device
// allocations from the caller's resource where one is set, else the library's
// own pool per device, raw copies, fills, the
// ordering of a free after another stream's reads) and page_locked<target::cuda>
// (pinned host memory, cudaMallocHost). A part of detail/memory.hpp, which
// includes it in CUDA-backend builds after the allocation hooks, bytes_str and
// memory<target::host> it uses; not included on its own.
#pragma once

#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>

#include "../../config.hpp"
#include "../../error.hpp"
#include "../../stream.hpp"

namespace ufunc::detail {

template <>
struct memory<target::cuda> {
  /// `use_resource` false: from the pool even where the caller set a resource
  /// (memory the library keeps between calls, which may outlive the resource).
  static void* allocate(std::size_t bytes, stream_ref s = {}, bool use_resource = true) {
    if (bytes == 0) return nullptr;
    allocation_hook_before("device memory", bytes);
    int dev = 0;
    UFUNC_CUDA_CHECK(cudaGetDevice(&dev));
    void* p = nullptr;
    if (use_resource && resource_registry::get().allocate(dev, bytes, s.get(), p)) {  // the caller's resource
      allocation_hook_made();
      return p;
    }
    cudaMemPool_t pool = pool_of(dev);
    cudaError_t err = cudaMallocFromPoolAsync(&p, bytes, pool, s.get());
    if (err == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      // Memory cached by the pool may be what is missing: wait for pending frees,
      // give cached memory back and try once more.
      UFUNC_CUDA_CHECK(cudaStreamSynchronize(s.get()));
      UFUNC_CUDA_CHECK(cudaMemPoolTrimTo(pool, 0));
      err = cudaMallocFromPoolAsync(&p, bytes, pool, s.get());
    }
    if (err == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      // A failed request can leave the pool holding what it reserved for it (the
      // release threshold would keep it there): give it back before reporting.
      UFUNC_CUDA_CHECK(cudaMemPoolTrimTo(pool, 0));
      std::size_t free_b = 0, total_b = 0;
      UFUNC_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
      throw out_of_memory("ufunc: cannot allocate " + bytes_str(bytes) + " on CUDA device " + std::to_string(dev) +
                          "; free " + bytes_str(free_b) + " of " + bytes_str(total_b));
    }
    UFUNC_CUDA_CHECK(err);
    allocation_hook_made();
    return p;
  }
  static void deallocate(void* p, stream_ref s = {}) noexcept {
    if (!p) return;
    allocation_hook_freed();
    if (resource_registry::get().deallocate(p, s.get())) return;  // made by a caller's resource
    // Destructors must not throw; errors here (e.g. at process teardown, when the
    // runtime is already unloading) are cleared and ignored.
    if (cudaFreeAsync(p, s.get()) != cudaSuccess) (void)cudaGetLastError();
  }
  static void copy(void* dst, const void* src, std::size_t bytes, stream_ref s = {}) {
    if (bytes) UFUNC_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s.get()));
  }
  /// Returns once `src` may be reused (pageable sources are staged by the runtime).
  static void copy_from_host(void* dst, const void* src, std::size_t bytes, stream_ref s = {}) {
    if (bytes) UFUNC_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, s.get()));
  }
  /// Synchronous: returns when `dst` holds the data.
  static void copy_to_host(void* dst, const void* src, std::size_t bytes, stream_ref s = {}) {
    if (bytes) UFUNC_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, s.get()));
    UFUNC_CUDA_CHECK(cudaStreamSynchronize(s.get()));
  }
  static void fill_bytes(void* dst, unsigned char value, std::size_t bytes, stream_ref s = {}) {
    if (bytes) UFUNC_CUDA_CHECK(cudaMemsetAsync(dst, value, bytes, s.get()));
  }
  /// Work enqueued on `later` from now on waits for the work enqueued on `s` so
  /// far: a free on `later` of memory that `s` still reads is then safe.
  static void order_after(stream_ref later, stream_ref s) {
    if (later.get() == s.get()) return;
    cudaEvent_t ev;
    UFUNC_CUDA_CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
    const cudaError_t rec = cudaEventRecord(ev, s.get());
    const cudaError_t wait = rec == cudaSuccess ? cudaStreamWaitEvent(later.get(), ev, 0) : rec;
    (void)cudaEventDestroy(ev);
    UFUNC_CUDA_CHECK(wait);
  }

 private:
  /// The library's own pool on `dev` (kept in the device's context, runtime.hpp).
  static cudaMemPool_t pool_of(int dev) { return runtime<target::cuda>::context(dev).pool; }
};

/// Page-locked host memory on the CUDA backend (pinned_memory's, detail/memory.hpp):
/// cudaMallocHost, so copies to and from the device run at full link speed and
/// asynchronously.
template <>
struct page_locked<target::cuda> {
  static void* allocate(std::size_t bytes) {
    allocation_hook_before("pinned host memory", bytes);
    void* p = nullptr;
    const cudaError_t err = cudaMallocHost(&p, bytes);
    if (err == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      throw out_of_memory("ufunc: cannot allocate " + bytes_str(bytes) + " of page-locked host memory");
    }
    UFUNC_CUDA_CHECK(err);
    allocation_hook_made();
    return p;
  }
  static void deallocate(void* p) noexcept {
    allocation_hook_freed();
    if (cudaFreeHost(p) != cudaSuccess) (void)cudaGetLastError();
  }
};

/// The CUDA backend's host_flag (detail/memory.hpp): a word of page-locked,
/// mapped host memory that kernels write through its device address; zeroed by
/// the host when made, read by the host after cudaStreamSynchronize. Words come
/// from a block of 64 per thread (cudaHostAlloc once, kept for the thread), in
/// stack order: at most 64 live at once on a thread.
template <>
class host_flag<target::cuda> {
 public:
  explicit host_flag(stream_ref s) : s_(s) {
    auto& b = block_of_thread();
    if (b.depth >= block::words) throw std::logic_error("ufunc: more than 64 host flags live on one thread");
    if (!b.host) b.make();
    host_ = b.host + b.depth;
    dev_ = b.dev + b.depth;
    ++b.depth;
    *static_cast<volatile unsigned*>(host_) = 0u;
  }
  ~host_flag() { --block_of_thread().depth; }
  host_flag(const host_flag&) = delete;
  host_flag& operator=(const host_flag&) = delete;
  /// The device address of the word (kernels write it; it reads back on the host).
  unsigned* word() const { return dev_; }
  /// Waits for the work enqueued on the stream so far; then the word.
  unsigned read() const {
    UFUNC_CUDA_CHECK(cudaStreamSynchronize(s_.get()));
    return *static_cast<volatile unsigned*>(host_);
  }

 private:
  struct block {
    static constexpr int words = 64;
    unsigned* host = nullptr;
    unsigned* dev = nullptr;
    int depth = 0;
    void make() {
      allocation_hook_before("pinned host memory", words * sizeof(unsigned));
      void* p = nullptr;
      UFUNC_CUDA_CHECK(cudaHostAlloc(&p, words * sizeof(unsigned), cudaHostAllocMapped | cudaHostAllocPortable));
      void* d = nullptr;
      const cudaError_t e = cudaHostGetDevicePointer(&d, p, 0);
      if (e != cudaSuccess) {
        (void)cudaFreeHost(p);
        UFUNC_CUDA_CHECK(e);
      }
      allocation_hook_made();
      host = static_cast<unsigned*>(p);
      dev = static_cast<unsigned*>(d);
    }
    block() = default;
    block(const block&) = delete;
    block& operator=(const block&) = delete;
    ~block() {
      if (!host) return;
      allocation_hook_freed();
      if (cudaFreeHost(host) != cudaSuccess) (void)cudaGetLastError();  // at teardown
    }
  };
  static block& block_of_thread() {
    thread_local block b;
    return b;
  }
  stream_ref s_;
  unsigned* host_ = nullptr;
  unsigned* dev_ = nullptr;
};

}  // namespace ufunc::detail
