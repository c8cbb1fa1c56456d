// Allocation and raw copies per target: memory<target::host> here,
// memory<target::cuda> in detail/cuda/memory.hpp (included below in CUDA-backend
// builds), which allocates stream-ordered from the library's own pool per
// device, set to keep freed memory cached so that allocating a result per call
// costs about as much as a pointer bump (as CuPy's and PyTorch's caching
// allocators do). Every allocation the library makes, on either target, goes
// through memory<Target>::allocate (the CUDA pinned result slot through the
// same hook), so the test-only allocation hook below sees them all.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>
#if defined(__linux__)
#  include <sys/mman.h>
#endif

#include "../config.hpp"
#include "../error.hpp"
#include "../stream.hpp"

#if !defined(_WIN32)
#  include <unistd.h>
#endif

namespace ufunc::detail {

/// Asks for transparent huge pages over the whole pages of [p, p + bytes) when
/// it spans at least `huge_advice_min_bytes` (Linux; elsewhere, or where the
/// kernel's THP setting is "never", nothing changes). A fresh result vector's
/// first touch then faults once per 2 MiB instead of once per 4 KiB: an H200
/// machine's host built a 64 MiB std::vector<float>(n) in 33-36 ms (one fault
/// per page, 2 GB/s) and in 11-12 ms so (bench/NOTES.md, session 29). From 32
/// MiB: what glibc maps on its own (its largest mmap threshold), so the advice
/// never splits the heap's mapping.
inline constexpr std::size_t huge_advice_min_bytes = std::size_t(32) << 20;
inline void advise_huge_pages(void* p, std::size_t bytes) noexcept {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (bytes < huge_advice_min_bytes) return;
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t page = 4096, lo = (a + page - 1) & ~(page - 1), hi = (a + bytes) & ~(page - 1);
  if (hi > lo) (void)::madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_HUGEPAGE);  // advice: failure is harmless
#else
  (void)p, (void)bytes;
#endif
}

/// advise_huge_pages over a vector's reserved storage (before its elements are
/// made; std::vector<bool> has no such storage).
template <class T>
void advise_reserved(std::vector<T>& v) noexcept {
  if constexpr (!std::is_same_v<T, bool>) advise_huge_pages(v.data(), v.capacity() * sizeof(T));
}

/// A new std::vector of n value-initialised elements, its storage advised to
/// huge pages before the elements are made (advise_huge_pages). Large results
/// returned as std::vector (array::to_host, a streamed call's new vectors) are
/// made so.
template <class T>
std::vector<T> new_host_vector(std::size_t n) {
  std::vector<T> v;
  v.reserve(n);
  advise_reserved(v);
  v.resize(n);
  return v;
}

inline std::string bytes_str(std::size_t b) {
  char gib[48];
  std::snprintf(gib, sizeof gib, "%.2f", static_cast<double>(b) / double(1ull << 30));
  return std::to_string(b) + " bytes (" + gib + " GiB)";
}

#if defined(UFUNC_TESTING)
/// TEST-ONLY (compiled in with UFUNC_TESTING, for a whole program; the test suite
/// defines it): an allocation limit that makes the library's allocations fail
/// from a chosen one on, and a count of the allocations alive, so tests can
/// check that a call interrupted by out-of-memory frees what it took. Without
/// UFUNC_TESTING none of this exists and allocation costs nothing extra.
namespace testing {
struct allocation_state {
  std::atomic<long long> attempts{0};  ///< allocations asked for (nonzero sizes) since program start
  std::atomic<long long> fail_from{0};  ///< attempt number from which allocations fail (0: none do)
  std::atomic<long long> live{0};       ///< allocations made and not yet freed
};
inline allocation_state& allocations() {
  static allocation_state s;  // atomics: the hook runs on every thread that allocates
  return s;
}
/// From now on, allocation number k (1-based, counting from this call) and every
/// later one throw out_of_memory, until clear_allocation_limit(). k <= 0 clears.
inline void set_allocation_limit(long long k) {
  auto& a = allocations();
  a.fail_from.store(k > 0 ? a.attempts.load() + k : 0);
}
inline void clear_allocation_limit() { allocations().fail_from.store(0); }
/// Allocations attempted so far (for counting the allocations a call makes).
inline long long allocation_attempts() { return allocations().attempts.load(); }
/// Allocations made (device, host, pinned) and not yet freed.
inline long long live_allocations() { return allocations().live.load(); }

/// A fault the streaming pipeline (detail/cuda/stream_pipeline.hpp) raises, and
/// what the last pipeline planned, so tests can interrupt a streamed call at a
/// chosen chunk and know which rows came before it.
struct pipeline_state {
  std::atomic<long long> fault_chunk{-1};   ///< chunk (0-based) whose enqueue fails (-1: none)
  std::atomic<long long> chunks{0};         ///< the last pipeline's chunk count
  std::atomic<long long> rows_per_chunk{0};  ///< its rows per chunk (rows of its chunked axis)
  std::atomic<long long> chunk_elems{0};     ///< elements of its iteration space a full chunk covers
  std::atomic<int> buffers{0};              ///< its pipeline depth
  std::atomic<bool> late_alloc_fault{false};  ///< result vectors made late throw bad_alloc (every way)
  std::atomic<int> late_build{-1};  ///< where the last pipeline's late outputs were built (detail::late_build; -1: none)
};
inline pipeline_state& pipeline() {
  static pipeline_state s;
  return s;
}
/// From now on every streaming pipeline fails with cuda_error (through the same
/// check as a failed CUDA call: a cudaErrorInvalidValue, which leaves the device
/// usable) when it enqueues chunk k (0-based: after the chunk's host-to-device
/// copies are enqueued, before its kernels), until clear_pipeline_fault().
/// k < 0 clears.
inline void set_pipeline_fault(long long k) { pipeline().fault_chunk.store(k < 0 ? -1 : k); }
inline void clear_pipeline_fault() { pipeline().fault_chunk.store(-1); }
/// While set, the std::vector results a streamed call constructs on another
/// thread (vectorize.hpp, late_vectors) fail with std::bad_alloc there.
inline void set_late_alloc_fault(bool on) { pipeline().late_alloc_fault.store(on); }
}  // namespace testing
#endif

/// Called before every allocation of nonzero size (the one place the test-only
/// limit refuses one), and after it succeeded / before freeing a non-null
/// pointer (the test-only live count). Empty without UFUNC_TESTING.
inline void allocation_hook_before(const char* what, std::size_t bytes) {
#if defined(UFUNC_TESTING)
  auto& a = testing::allocations();
  const long long n = a.attempts.fetch_add(1) + 1;
  const long long from = a.fail_from.load();
  if (from > 0 && n >= from)
    throw out_of_memory(std::string("ufunc: cannot allocate ") + bytes_str(bytes) + " of " + what +
                        " (refused by the test allocation limit, refusal " + std::to_string(n - from + 1) + ")");
#else
  (void)what, (void)bytes;
#endif
}
inline void allocation_hook_made() noexcept {
#if defined(UFUNC_TESTING)
  testing::allocations().live.fetch_add(1);
#endif
}
inline void allocation_hook_freed() noexcept {
#if defined(UFUNC_TESTING)
  testing::allocations().live.fetch_sub(1);
#endif
}

/// A caller's memory resource (ufunc::set_memory_resource), type-erased and held
/// by reference: `alloc(obj, bytes, alignment, stream)` and `dealloc(obj, p,
/// bytes, alignment, stream)` call the resource's own functions.
struct resource_handle {
  void* obj = nullptr;
  void* (*alloc)(void*, std::size_t, std::size_t, cudaStream_t) = nullptr;
  void (*dealloc)(void*, void*, std::size_t, std::size_t, cudaStream_t) = nullptr;
  explicit operator bool() const noexcept { return obj != nullptr; }
};

/// The alignment asked of a caller's resource: cudaMalloc's, which the kernels'
/// 16-byte vector accesses and the host loops' cache-line alignment rely on.
inline constexpr std::size_t resource_alignment = 256;

/// The resource set per device (the host backend has device 0) and the
/// allocations each resource made (pointer -> resource, bytes), under one mutex,
/// so that memory is freed through the resource that made it even after another
/// was set. While no device has a resource, an allocation takes only the
/// `active_` load; while no resource-made memory is alive, a free takes only the
/// `live_` load (so a reset leaves the pool's paths as they were). Never
/// destroyed (memory may be freed during static destruction).
class resource_registry {
 public:
  static constexpr int max_devices = 64;
  static resource_registry& get() {
    static resource_registry* r = new resource_registry;
    return *r;
  }
  void set(int dev, const resource_handle& h) {
    std::lock_guard<std::mutex> lock(m_);
    resource_handle& slot = set_[static_cast<std::size_t>(dev)];
    active_.fetch_add((h ? 1 : 0) - (slot ? 1 : 0), std::memory_order_release);
    slot = h;
  }
  /// Whether any device has a resource set.
  bool any() const noexcept { return active_.load(std::memory_order_acquire) != 0; }
  /// Allocates `bytes` through device `dev`'s resource: false when it has none.
  bool allocate(int dev, std::size_t bytes, cudaStream_t s, void*& p) {
    if (active_.load(std::memory_order_acquire) == 0 || dev < 0 || dev >= max_devices) return false;
    resource_handle h;
    {
      std::lock_guard<std::mutex> lock(m_);
      h = set_[static_cast<std::size_t>(dev)];
    }
    if (!h) return false;
    void* q = nullptr;
    try {
      q = h.alloc(h.obj, bytes, resource_alignment, s);
    } catch (const std::bad_alloc& e) {
      throw out_of_memory("ufunc: the memory resource of device " + std::to_string(dev) + " cannot allocate " +
                          bytes_str(bytes) + " (" + e.what() + ")");
    }
    if (!q)
      throw out_of_memory("ufunc: the memory resource of device " + std::to_string(dev) + " returned null for " +
                          bytes_str(bytes));
    if (reinterpret_cast<std::uintptr_t>(q) % resource_alignment != 0) {
      h.dealloc(h.obj, q, bytes, resource_alignment, s);
      throw value_error("ufunc: the memory resource of device " + std::to_string(dev) + " returned a pointer not " +
                        "aligned to " + std::to_string(resource_alignment) + " bytes");
    }
    try {
      std::lock_guard<std::mutex> lock(m_);
      made_.emplace(q, made{h, bytes});
      live_.fetch_add(1, std::memory_order_release);
    } catch (...) {
      h.dealloc(h.obj, q, bytes, resource_alignment, s);
      throw;
    }
    p = q;
    return true;
  }
  /// Frees `p` through the resource that made it: false when none did.
  bool deallocate(void* p, cudaStream_t s) noexcept {
    if (live_.load(std::memory_order_acquire) == 0) return false;
    made e;
    {
      std::lock_guard<std::mutex> lock(m_);
      auto it = made_.find(p);
      if (it == made_.end()) return false;
      e = it->second;
      made_.erase(it);
      live_.fetch_sub(1, std::memory_order_relaxed);
    }
    try {
      e.h.dealloc(e.h.obj, p, e.bytes, resource_alignment, s);
    } catch (...) {  // a free cannot report; the resource keeps what it could not take back
    }
    return true;
  }

 private:
  struct made {
    resource_handle h;
    std::size_t bytes = 0;
  };
  std::mutex m_;
  resource_handle set_[max_devices];
  std::unordered_map<void*, made> made_;
  std::atomic<int> active_{0};         // devices with a resource set
  std::atomic<std::size_t> live_{0};  // entries of made_
};

template <class Target>
struct memory;

template <>
struct memory<target::host> {
  static constexpr std::size_t alignment = 64;  // a cache line; also satisfies 16-byte vector access

  /// `use_resource` false: never from a caller's resource (page-locked memory).
  static void* allocate(std::size_t bytes, stream_ref = {}, bool use_resource = true) {
    if (bytes == 0) return nullptr;
    const std::size_t rounded = (bytes + alignment - 1) / alignment * alignment;
    if (rounded < bytes) throw_oom(bytes);
    allocation_hook_before("host memory", bytes);
    void* p = nullptr;
    // The host backend's memory is its device memory: a resource set for
    // device 0 serves it (in CUDA builds host arrays never take a resource).
    if constexpr (!target_traits<target::device>::is_device)
      if (use_resource && resource_registry::get().allocate(0, bytes, nullptr, p)) {
        allocation_hook_made();
        return p;
      }
    p = std::aligned_alloc(alignment, rounded);
    if (!p) throw_oom(bytes);
    allocation_hook_made();
    return p;
  }
  static void deallocate(void* p, stream_ref = {}) noexcept {
    if (!p) return;
    allocation_hook_freed();
    if constexpr (!target_traits<target::device>::is_device)
      if (resource_registry::get().deallocate(p, nullptr)) return;
    std::free(p);
  }
  static void copy(void* dst, const void* src, std::size_t bytes, stream_ref = {}) {
    if (bytes) std::memmove(dst, src, bytes);
  }
  static void copy_from_host(void* dst, const void* src, std::size_t bytes, stream_ref s = {}) {
    copy(dst, src, bytes, s);
  }
  static void copy_to_host(void* dst, const void* src, std::size_t bytes, stream_ref s = {}) {
    copy(dst, src, bytes, s);
  }
  static void fill_bytes(void* dst, unsigned char value, std::size_t bytes, stream_ref = {}) {
    if (bytes) std::memset(dst, value, bytes);
  }
  static void order_after(stream_ref, stream_ref) noexcept {}

 private:
  [[noreturn]] static void throw_oom(std::size_t bytes) {
    std::string msg = "ufunc: cannot allocate " + bytes_str(bytes) + " of host memory";
#if !defined(_WIN32)
    const long page = sysconf(_SC_PAGESIZE);
    msg += "; available " + bytes_str(static_cast<std::size_t>(sysconf(_SC_AVPHYS_PAGES)) * page) + " of " +
           bytes_str(static_cast<std::size_t>(sysconf(_SC_PHYS_PAGES)) * page);
#endif
    throw out_of_memory(msg);
  }
};

/// Page-locked host memory per target, for pinned_memory: plain aligned host
/// memory on the host backend, where nothing is ever copied to a device; the
/// CUDA backend's (cudaMallocHost) is in detail/cuda/memory.hpp. Sizes are
/// nonzero and pointers non-null (pinned_memory checks).
template <class Target>
struct page_locked;

template <>
struct page_locked<target::host> {
  static void* allocate(std::size_t bytes) { return memory<target::host>::allocate(bytes, {}, false); }
  static void deallocate(void* p) noexcept { memory<target::host>::deallocate(p); }
};

/// A word that work enqueued on a device's stream may set and the host then
/// reads (f.at's "an index was out of range"): zero when made; `word()` is the
/// address device code writes; `read()` waits for the stream's work so far and
/// returns the word. Each device backend specialises it (the CUDA one, a
/// page-locked mapped host word, is in detail/cuda/memory.hpp: neither a fill
/// nor a copy is enqueued for it); the host target needs none (its f.at checks
/// every index before the first write). A flag is made and read by one thread.
template <class Target>
class host_flag;

}  // namespace ufunc::detail

#include UFUNC_CUDA_BACKEND("cuda/memory.hpp")  // memory<target::cuda>, page_locked<target::cuda>

namespace ufunc::detail {

/// Page-locked host memory (`pinned_array`, the streaming staging buffers):
/// cudaMallocHost on the CUDA backend, so copies to and from the device run at
/// full link speed and asynchronously; plain aligned host memory on the host
/// backend, where nothing is ever copied to a device.
struct pinned_memory {
  static void* allocate(std::size_t bytes) {
    if (bytes == 0) return nullptr;
    return page_locked<target::device>::allocate(bytes);
  }
  static void deallocate(void* p) noexcept {
    if (!p) return;
    page_locked<target::device>::deallocate(p);
  }
};

/// The device memory limit of streamed calls (ufunc::set_device_memory_limit):
/// 0 means the default, read when a call plans its chunks.
inline std::atomic<std::size_t>& device_limit_setting() {
  static std::atomic<std::size_t> v{0};
  return v;
}

/// The limit a streamed call plans with now: the one set, else what the device
/// has free less a margin (a tenth, at least 256 MiB) for other allocations and
/// the pool's rounding. The host backend has no device memory: no limit.
inline std::size_t device_limit_now() {
  const std::size_t set = device_limit_setting().load();
  if (set) return set;
  if constexpr (target_traits<target::device>::is_device) {
    std::size_t free_b = 0, total_b = 0;
    runtime<target::device>::memory_info(free_b, total_b);
    const std::size_t margin = std::max<std::size_t>(free_b / 10, std::size_t(256) << 20);
    return free_b > margin ? free_b - margin : 0;
  } else {
    return SIZE_MAX;
  }
}

}  // namespace ufunc::detail
