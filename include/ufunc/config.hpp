// Compile-time configuration: which backend the headers target, the host/device
// annotation for user lambdas, the index type, and the execution targets.
#pragma once

#include <cstddef>
#include <cstdint>

// UFUNC_BACKEND_CUDA is defined by the CMake target when UFUNC_BACKEND resolves to
// `cuda`. Without it everything runs on the host backend, even under nvcc.
//
// `cudaStream_t` is a type of both backends, so that the same sources (a call
// given a stream) build for either. The host backend takes it from the
// toolkit's header (declarations only: it calls nothing of the runtime and
// links no cudart); where that header is absent it declares it as the header
// does, so that stream.hpp stands without the toolkit (the 16-bit element
// types, element.hpp, still need its cuda_fp16.h and cuda_bf16.h).
#if defined(UFUNC_BACKEND_CUDA) || __has_include(<cuda_runtime_api.h>)
#  include <cuda_runtime_api.h>
#else
struct CUstream_st;
typedef struct CUstream_st* cudaStream_t;  // exactly driver_types.h's, so both may be seen
#endif

// When host code includes Thrust without nvcc, its default "device" system must be
// a host one; the CMake target sets this too, so that every TU agrees.
#if !defined(__CUDACC__) && !defined(THRUST_DEVICE_SYSTEM)
#  define THRUST_DEVICE_SYSTEM THRUST_DEVICE_SYSTEM_OMP
#endif

/// Marks a function or lambda as callable from host and device code. Expands to
/// `__host__ __device__` under a CUDA compiler and to nothing under g++/clang, so
/// the same user code builds for both backends. nvcc rejects generic (`auto`)
/// `__host__ __device__` lambdas; use a function object with a template call
/// operator for those (it works on every backend).
#if defined(__CUDACC__)
#  define UFUNC_HD __host__ __device__
#else
#  define UFUNC_HD
#endif

// True while compiling device code (nvcc's device pass).
#if defined(__CUDA_ARCH__)
#  define UFUNC_DEVICE_PASS 1
#else
#  define UFUNC_DEVICE_PASS 0
#endif

namespace ufunc {

/// Signed 64-bit index type used for shapes, strides and element counts, so that
/// arrays beyond 2^31 elements index correctly everywhere.
using index_t = std::int64_t;

/// Execution and memory targets. A target names both where memory lives and where
/// work runs; arrays, views and ufuncs are parameterised by one.
namespace target {
/// Host memory, work spread over all cores with OpenMP.
struct host {
  static constexpr const char* name = "host";
};
}  // namespace target

namespace detail {
/// Facts of a target that generic code asks instead of testing
/// `!std::is_same<Target, target::host>`: `is_device`, true for a target whose
/// memory and work are on a device (its own devices, streams and events).
template <class Target>
struct target_traits;
template <>
struct target_traits<target::host> {
  static constexpr bool is_device = false;
};

/// The runtime of a target: devices, streams, events, pointer queries and peer
/// copies, one specialisation per backend (detail/host/runtime.hpp,
/// detail/cuda/runtime.hpp); public headers call it instead of the CUDA runtime.
template <class Target>
struct runtime;

/// The streaming pipeline of a device target (host data moved through the device
/// in chunks; detail/cuda/stream_pipeline.hpp): `buffers`, the operand record
/// `io`, `chunk_bytes(operands)` and `run(plan, ...)`. The host target streams
/// nothing (its memory is the data) and has none.
template <class Target>
struct pipeline;

/// The collectives between the devices of a set (detail/cuda/nccl.hpp: NCCL in
/// CUDA builds that found it): `available` false where the build has none (the
/// host target, CUDA without NCCL), and the sharded operations then copy and
/// fold; `reducible<Op, T>()` whether its reduction computes what Op computes.
template <class Target>
struct collectives {
  static constexpr bool available = false;
  template <class Op, class T>
  static constexpr bool reducible() {
    return false;
  }
};

/// `Target`, as a type that depends on `T`: device-only code inside a template
/// (a branch discarded for the host target) then compiles in host builds too.
template <class Target, class T>
struct dependent_target {
  using type = Target;
};

/// Where a pointer's memory lives, as a device runtime reports it
/// (runtime<Target>::locate): the interop headers translate it to their own
/// device types.
struct memory_location {
  enum kind_t { host, pinned_host, device, managed } kind = host;
  int device_id = 0;  ///< for device and managed memory
};
}  // namespace detail

}  // namespace ufunc

// The one place that turns the build's backend into types and headers (the other
// tests of UFUNC_BACKEND_CUDA are in the CUDA backend's own headers, and in the
// public code that exists in CUDA builds only). A dispatch header in detail/
// includes its CUDA counterpart as `#include UFUNC_CUDA_BACKEND("cuda/x.hpp")`:
// that file in CUDA builds, an empty one otherwise (Thrust selects its device
// system's headers the same way).
#if defined(UFUNC_BACKEND_CUDA)
namespace ufunc {
namespace target {
/// CUDA device memory and kernels.
struct cuda {
  static constexpr const char* name = "cuda";
};
/// The default target of this build: CUDA when built for the CUDA backend.
using device = cuda;
}  // namespace target
/// True in builds configured for the CUDA backend.
inline constexpr bool cuda_backend = true;
namespace detail {
template <>
struct target_traits<target::cuda> {
  static constexpr bool is_device = true;
};
}  // namespace detail
}  // namespace ufunc
#  define UFUNC_CUDA_BACKEND(header) header
#else
namespace ufunc {
namespace target {
/// The default target of this build: the host backend.
using device = host;
}  // namespace target
/// True in builds configured for the CUDA backend.
inline constexpr bool cuda_backend = false;
}  // namespace ufunc
#  define UFUNC_CUDA_BACKEND(header) "no_backend.hpp"
#endif
