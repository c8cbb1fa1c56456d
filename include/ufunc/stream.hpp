// A non-owning handle to the stream a call is ordered on.
#pragma once

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

}  // namespace ufunc
