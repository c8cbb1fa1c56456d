// Typed errors. Every public operation validates its input on the host before any
// work is enqueued, so a call that throws has written nothing.
#pragma once

#include <new>
#include <stdexcept>
#include <string>

#include "config.hpp"

namespace ufunc {

/// Shapes that do not broadcast, an `out` of the wrong shape, a rank above 8, an
/// `out` that partially overlaps an input, an invalid axis. The message names the
/// operation and every shape involved.
class shape_error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// A value that the operation cannot accept (for example a reduction of an empty
/// input without an identity).
class value_error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// An `out` whose element type the result may not be converted to: NumPy's
/// `same_kind` rule (floating point into an integer or bool, signed into
/// unsigned, anything but bool into bool) unless the call passes
/// `ufunc::unsafe_cast`. The message names the operation and both types.
class type_error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// An allocation the device (or host) cannot hold. The message gives the requested
/// bytes and the free and total memory; the device stays usable afterwards.
class out_of_memory : public std::bad_alloc {
 public:
  explicit out_of_memory(std::string msg) : msg_(std::move(msg)) {}
  const char* what() const noexcept override { return msg_.c_str(); }

 private:
  std::string msg_;
};

/// A failing CUDA runtime call or kernel launch: names the call, file, line and the
/// runtime's error string.
class cuda_error : public std::runtime_error {
 public:
  cuda_error(std::string msg, int code) : std::runtime_error(std::move(msg)), code_(code) {}
  /// The `cudaError_t` value, as an int so that this header needs no CUDA include.
  int code() const noexcept { return code_; }

 private:
  int code_;
};

/// A failing NCCL call (the collectives of sharded arrays over several GPUs):
/// names the call and NCCL's error string; `code()` is the `ncclResult_t`.
class nccl_error : public std::runtime_error {
 public:
  nccl_error(std::string msg, int code) : std::runtime_error(std::move(msg)), code_(code) {}
  int code() const noexcept { return code_; }

 private:
  int code_;
};

/// A collective across the ranks of a `ufunc::communicator` that failed: the
/// transport returned an error (MPI; over files: a wait timed out, a rank
/// aborted, the ranks' byte counts differ), or another rank failed inside the same
/// sharded operation (that rank throws its own error; the others throw this,
/// naming it), so that no rank waits for a collective the failed one never enters.
class communication_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace ufunc

#if defined(UFUNC_BACKEND_CUDA)
namespace ufunc::detail {
[[noreturn]] inline void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line) {
  throw cuda_error(std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
                       cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")",
                   static_cast<int>(err));
}
}  // namespace ufunc::detail

/// Checks a CUDA runtime call and throws ufunc::cuda_error on failure. The failed
/// call's error is cleared first when it is not sticky, so the device stays usable.
#  define UFUNC_CUDA_CHECK(call)                                                 \
    do {                                                                         \
      cudaError_t ufunc_err_ = (call);                                           \
      if (ufunc_err_ != cudaSuccess) {                                           \
        (void)cudaGetLastError();                                                \
        ::ufunc::detail::throw_cuda_error(ufunc_err_, #call, __FILE__, __LINE__); \
      }                                                                          \
    } while (0)

/// Checks the launch just made (`what` names the kernel). With UFUNC_DEBUG_SYNC
/// defined it also waits for the stream, so a failing kernel is reported at its
/// own call site rather than at a later synchronisation.
#  define UFUNC_CHECK_LAUNCH(what, stream) ::ufunc::detail::check_launch((what), (stream), __FILE__, __LINE__)

namespace ufunc::detail {
inline void check_launch(const char* what, cudaStream_t stream, const char* file, int line) {
  cudaError_t err = cudaGetLastError();
#  if defined(UFUNC_DEBUG_SYNC)
  if (err == cudaSuccess) err = cudaStreamSynchronize(stream);
#  else
  (void)stream;
#  endif
  if (err != cudaSuccess) throw_cuda_error(err, (std::string("launch of ") + what).c_str(), file, line);
}
}  // namespace ufunc::detail
#endif
