// Compile-time configuration: which backend the headers target, the host/device
// annotation for user lambdas, the index type, and the execution targets.
#pragma once

#include <cstddef>
#include <cstdint>

// UFUNC_BACKEND_CUDA is defined by the CMake target when UFUNC_BACKEND resolves to
// `cuda`. Without it everything runs on the host backend, even under nvcc.
#if defined(UFUNC_BACKEND_CUDA)
#  include <cuda_runtime_api.h>
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

}  // namespace ufunc
