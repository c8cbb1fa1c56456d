// Streams: a non-owning handle to the stream a call is ordered on (stream_ref),
// and an owning one (stream).
#pragma once

#include <type_traits>
#include <utility>

#include "config.hpp"
#include "detail/cuda/runtime.hpp"  // the runtime seam: runtime<target::cuda> (CUDA builds only)
#include "detail/host/runtime.hpp"  // runtime<target::host>
#include "error.hpp"

// libcu++'s non-owning handle, where the toolkit's CCCL has it (it needs the
// runtime's header even on the host backend, which only reads its handle).
#if __has_include(<cuda/stream_ref>) && (defined(UFUNC_BACKEND_CUDA) || __has_include(<cuda_runtime_api.h>))
#  include <cuda/stream_ref>
#  define UFUNC_HAS_CUDA_STREAM_REF 1
#else
#  define UFUNC_HAS_CUDA_STREAM_REF 0
#endif

namespace ufunc {

namespace detail {
/// libcu++'s `cuda::stream_ref`, or a type derived from it (a CCCL owning
/// stream): a stream a call takes. False where libcu++ lacks it.
template <class S, class = void>
inline constexpr bool is_cuda_stream_ref_v = false;
#if UFUNC_HAS_CUDA_STREAM_REF
template <class S>
inline constexpr bool is_cuda_stream_ref_v<S, std::enable_if_t<std::is_base_of_v<::cuda::stream_ref, S>>> = true;
#endif
}  // namespace detail

/// Names the stream an operation runs on. Default-constructed it is the CUDA
/// legacy default stream (which orders with every other blocking stream). A
/// `cudaStream_t` and libcu++'s `cuda::stream_ref` (<cuda/stream_ref>) convert
/// to it implicitly, on both backends, so a call can be given any of them; it
/// converts to `cuda::stream_ref` in turn.
///
/// On the host backend work is synchronous on the calling thread, whatever the
/// handle: the default (null) stream means the calling thread, and so does any
/// other `cudaStream_t` (kept, and returned by get(), but nothing is enqueued
/// on it and nothing waits for work pending on it: synchronise such a stream
/// yourself before a host call reads memory that its work writes).
///
/// Passing a stream: append it to a call, e.g. `f(x, y, ufunc::out(z), s)`, or give
/// it to a factory (`ufunc::empty<float>(shp, s)`). An array remembers the stream it
/// was allocated on and frees its memory there (stream-ordered); using it on another
/// stream requires the usual event synchronisation between the two streams.
class stream_ref {
 public:
  constexpr stream_ref() noexcept = default;
  constexpr stream_ref(cudaStream_t s) noexcept : s_(s) {}  // NOLINT: implicit by design
#if UFUNC_HAS_CUDA_STREAM_REF
  /// From libcu++'s handle (or a stream derived from it). A template, so that
  /// `ufunc::stream`, which converts to both handles, converts to this one
  /// through its own operator without an ambiguity.
  template <class S, std::enable_if_t<detail::is_cuda_stream_ref_v<S>, int> = 0>
  constexpr stream_ref(const S& s) noexcept : s_(s.get()) {}  // NOLINT: implicit by design
  /// To libcu++'s handle, for code that takes one.
  constexpr operator ::cuda::stream_ref() const noexcept { return ::cuda::stream_ref(s_); }  // NOLINT
#endif
  /// The CUDA handle (null: the legacy default stream; on the host backend
  /// whatever handle was given).
  constexpr cudaStream_t get() const noexcept { return s_; }
  /// Blocks the host until all work queued on the stream has finished (on the
  /// host backend: returns at once, the work is done).
  void synchronize() const noexcept(!cuda_backend) { detail::runtime<target::device>::stream_synchronize(s_); }

 private:
  cudaStream_t s_ = nullptr;
};

/// An owned CUDA stream: created by the constructor, destroyed by the destructor
/// (work still queued on it finishes first; the destructor does not wait for it).
/// Move-only; a moved-from stream refers to the legacy default stream. Converts to
/// `stream_ref`, so it can be passed wherever a stream is taken:
/// `ufunc::stream s; f(x, s); parallel_for(n, body, s); s.synchronize();`,
/// and to libcu++'s `cuda::stream_ref` where the toolkit has it.
/// `stream::non_blocking` makes a stream that does not synchronise with the legacy
/// default stream (cudaStreamNonBlocking).
///
/// Arrays remember the stream they were allocated on and free their memory there,
/// so destroy them before the stream (declare the stream first). On the host
/// backend work is synchronous: the stream is a placeholder with the same API.
class stream {
 public:
  enum flags : unsigned {
    blocking = 0,      ///< orders with the legacy default stream (cudaStreamDefault)
    non_blocking = 1,  ///< runs concurrently with the legacy default stream
  };

  stream() : stream(blocking) {}
  explicit stream(flags f) : flags_(f) { s_ = rt::stream_create(f == non_blocking); }
  stream(const stream&) = delete;
  stream& operator=(const stream&) = delete;
  stream(stream&& o) noexcept : flags_(o.flags_) {
    s_ = std::exchange(o.s_, nullptr);
    o.flags_ = blocking;
  }
  stream& operator=(stream&& o) noexcept {
    if (this != &o) {
      destroy();
      s_ = std::exchange(o.s_, nullptr);
      flags_ = std::exchange(o.flags_, blocking);
    }
    return *this;
  }
  ~stream() { destroy(); }

  /// The CUDA handle (null on the host backend, where the stream is a placeholder).
  cudaStream_t get() const noexcept { return s_; }
  stream_ref ref() const noexcept { return stream_ref(get()); }
  operator stream_ref() const noexcept { return ref(); }  // NOLINT: implicit by design
#if UFUNC_HAS_CUDA_STREAM_REF
  /// To libcu++'s handle, for code that takes one.
  operator ::cuda::stream_ref() const noexcept { return ::cuda::stream_ref(get()); }  // NOLINT
#endif
  flags get_flags() const noexcept { return flags_; }

  /// Blocks the host until all work queued on the stream has finished.
  void synchronize() const { ref().synchronize(); }

  /// True when all work queued on the stream has finished (does not block).
  bool ready() const { return rt::stream_ready(s_); }

 private:
  using rt = detail::runtime<target::device>;

  void destroy() noexcept {
    // Never throws (a destructor); a failure, e.g. at process teardown, is cleared.
    rt::stream_destroy(s_);
    s_ = nullptr;
  }

  cudaStream_t s_ = nullptr;  // null on the host backend (its runtime makes no streams)
  flags flags_ = blocking;
};

namespace detail {
template <class A>
using bare_t = std::remove_cv_t<std::remove_reference_t<A>>;
/// True for the types a call accepts as its stream argument, on both backends:
/// ufunc's own, a `cudaStream_t`, libcu++'s `cuda::stream_ref`.
template <class A>
inline constexpr bool is_stream_v = std::is_same_v<A, stream_ref> || std::is_same_v<A, stream> ||
                                    std::is_same_v<A, cudaStream_t> || is_cuda_stream_ref_v<A>;
}  // namespace detail

}  // namespace ufunc
