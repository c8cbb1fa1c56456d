// Named ranges around the library's calls, for profilers: each ufunc call,
// reduction, evaluate, matmul, transpose, parallel_for and array copy pushes an
// NVTX range named after it (the ufunc's name where it has one), so Nsight
// Systems shows them on the calling thread's timeline beside the kernels. NVTX
// is the CUDA Toolkit's header-only nvtx3: with no tool attached a range costs
// a call through a function pointer to an empty stub (a few nanoseconds; the
// first range of the process looks for a tool once). Define UFUNC_NO_NVTX to
// compile the ranges out. On either backend (Nsight Systems traces host threads).
#pragma once

#if !defined(UFUNC_NO_NVTX) && defined(__has_include)
#  if __has_include(<nvtx3/nvToolsExt.h>)
#    include <nvtx3/nvToolsExt.h>
#    define UFUNC_NVTX 1
#  endif
#endif
#if !defined(UFUNC_NVTX)
#  define UFUNC_NVTX 0
#endif

#if defined(UFUNC_TESTING)
#  include <atomic>
#  include <mutex>
#  include <string>
#  include <vector>
#endif

namespace ufunc::detail {

#if defined(UFUNC_TESTING)
namespace testing {
/// Test-only record of the ranges opened (names in order), while recording is on.
struct range_record {
  std::atomic<bool> on{false};
  std::mutex m;
  std::vector<std::string> names;
};
inline range_record& ranges() {
  static range_record r;
  return r;
}
/// Starts (clearing what was recorded) or stops recording.
inline void record_ranges(bool on) {
  auto& r = ranges();
  const std::lock_guard<std::mutex> lock(r.m);
  if (on) r.names.clear();
  r.on.store(on);
}
/// The names recorded since record_ranges(true).
inline std::vector<std::string> recorded_ranges() {
  auto& r = ranges();
  const std::lock_guard<std::mutex> lock(r.m);
  return r.names;
}
}  // namespace testing
#endif

/// An NVTX range for the lifetime of the object: a call's checks, planning,
/// enqueueing and (for calls that wait) waiting. `name` must outlive it (a
/// ufunc's name, a string literal). Never throws.
class trace_range {
 public:
  explicit trace_range(const char* name) noexcept {
#if UFUNC_NVTX
    // NVTX initialises itself at its first call and other threads then read the
    // function pointers it wrote, with no ordering a race detector sees (CI's TSan
    // stage reported it): the first range initialises it once, under a C++ static,
    // whose guard orders every later range after it.
    static const bool ready = (nvtxInitialize(nullptr), true);
    (void)ready;
    nvtxRangePushA(name ? name : "ufunc");
#endif
#if defined(UFUNC_TESTING)
    auto& r = testing::ranges();
    if (r.on.load(std::memory_order_relaxed)) {
      try {
        const std::lock_guard<std::mutex> lock(r.m);
        r.names.emplace_back(name ? name : "ufunc");
      } catch (...) {
      }
    }
#endif
    (void)name;
  }
  ~trace_range() {
#if UFUNC_NVTX
    nvtxRangePop();
#endif
  }
  trace_range(const trace_range&) = delete;
  trace_range& operator=(const trace_range&) = delete;
};

}  // namespace ufunc::detail
