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
#if defined(UFUNC_BACKEND_CUDA)
/// CUDA device memory and kernels.
struct cuda {
  static constexpr const char* name = "cuda";
};
/// The default target of this build: CUDA when built for the CUDA backend.
using device = cuda;
#else
/// The default target of this build: the host backend.
using device = host;
#endif
}  // namespace target

/// True in builds configured for the CUDA backend.
#if defined(UFUNC_BACKEND_CUDA)
inline constexpr bool cuda_backend = true;
#else
inline constexpr bool cuda_backend = false;
#endif

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
#if defined(UFUNC_BACKEND_CUDA)
template <>
struct target_traits<target::cuda> {
  static constexpr bool is_device = true;
};
#endif

/// The runtime of a target: devices, streams, events, pointer queries and peer
/// copies, one specialisation per backend (detail/host/runtime.hpp,
/// detail/cuda/runtime.hpp); public headers call it instead of the CUDA runtime.
template <class Target>
struct runtime;
}  // namespace detail

}  // namespace ufunc
