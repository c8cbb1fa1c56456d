// Streams: a non-owning handle to the stream a call is ordered on (stream_ref),
// and an owning one (stream).
#pragma once

#include <type_traits>
#include <utility>

#include "config.hpp"
#include "error.hpp"

namespace ufunc {

/// Names the stream an operation runs on. Default-constructed it is the CUDA
/// legacy default stream (which orders with every other blocking stream). Any
/// `cudaStream_t` converts to it implicitly, so a call can be given either. On the
/// host backend work is synchronous and the handle is a placeholder.
///
/// Passing a stream: append it to a call, e.g. `f(x, y, ufunc::out(z), s)`, or give
/// it to a factory (`ufunc::empty<float>(shp, s)`). An array remembers the stream it
/// was allocated on and frees its memory there (stream-ordered); using it on another
/// stream requires the usual event synchronisation between the two streams.
class stream_ref {
 public:
  constexpr stream_ref() noexcept = default;
#if defined(UFUNC_BACKEND_CUDA)
  constexpr stream_ref(cudaStream_t s) noexcept : s_(s) {}  // NOLINT: implicit by design
  constexpr cudaStream_t get() const noexcept { return s_; }
  /// Blocks the host until all work queued on the stream has finished.
  void synchronize() const { UFUNC_CUDA_CHECK(cudaStreamSynchronize(s_)); }

 private:
  cudaStream_t s_ = nullptr;
#else
  constexpr void* get() const noexcept { return nullptr; }
  void synchronize() const noexcept {}
#endif
};

/// An owned CUDA stream: created by the constructor, destroyed by the destructor
/// (work still queued on it finishes first; the destructor does not wait for it).
/// Move-only; a moved-from stream refers to the legacy default stream. Converts to
/// `stream_ref`, so it can be passed wherever a stream is taken:
/// `ufunc::stream s; f(x, s); parallel_for(n, body, s); s.synchronize();`.
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
  explicit stream(flags f) : flags_(f) {
#if defined(UFUNC_BACKEND_CUDA)
    UFUNC_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, f == non_blocking ? cudaStreamNonBlocking : cudaStreamDefault));
#endif
  }
  stream(const stream&) = delete;
  stream& operator=(const stream&) = delete;
  stream(stream&& o) noexcept : flags_(o.flags_) {
#if defined(UFUNC_BACKEND_CUDA)
    s_ = std::exchange(o.s_, nullptr);
#endif
    o.flags_ = blocking;
  }
  stream& operator=(stream&& o) noexcept {
    if (this != &o) {
      destroy();
#if defined(UFUNC_BACKEND_CUDA)
      s_ = std::exchange(o.s_, nullptr);
#endif
      flags_ = std::exchange(o.flags_, blocking);
    }
    return *this;
  }
  ~stream() { destroy(); }

#if defined(UFUNC_BACKEND_CUDA)
  cudaStream_t get() const noexcept { return s_; }
#else
  void* get() const noexcept { return nullptr; }
#endif
  stream_ref ref() const noexcept {
#if defined(UFUNC_BACKEND_CUDA)
    return stream_ref(s_);
#else
    return stream_ref();
#endif
  }
  operator stream_ref() const noexcept { return ref(); }  // NOLINT: implicit by design
  flags get_flags() const noexcept { return flags_; }

  /// Blocks the host until all work queued on the stream has finished.
  void synchronize() const { ref().synchronize(); }

  /// True when all work queued on the stream has finished (does not block).
  bool ready() const {
#if defined(UFUNC_BACKEND_CUDA)
    const cudaError_t err = cudaStreamQuery(s_);
    if (err == cudaErrorNotReady) {
      (void)cudaGetLastError();  // not an error: the stream is busy
      return false;
    }
    UFUNC_CUDA_CHECK(err);
#endif
    return true;
  }

 private:
  void destroy() noexcept {
#if defined(UFUNC_BACKEND_CUDA)
    // Never throws (a destructor); a failure, e.g. at process teardown, is cleared.
    if (s_ && cudaStreamDestroy(s_) != cudaSuccess) (void)cudaGetLastError();
    s_ = nullptr;
#endif
  }

#if defined(UFUNC_BACKEND_CUDA)
  cudaStream_t s_ = nullptr;
#endif
  flags flags_ = blocking;
};

namespace detail {
template <class A>
using bare_t = std::remove_cv_t<std::remove_reference_t<A>>;
/// True for the types a call accepts as its stream argument.
template <class A>
inline constexpr bool is_stream_v = std::is_same_v<A, stream_ref> || std::is_same_v<A, stream>
#if defined(UFUNC_BACKEND_CUDA)
                                    || std::is_same_v<A, cudaStream_t>
#endif
    ;
}  // namespace detail

}  // namespace ufunc
