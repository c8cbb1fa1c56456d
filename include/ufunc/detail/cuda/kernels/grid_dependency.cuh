// The device side of programmatic dependent launch (cuda_launch::launch_dependent,
// sm_90 on): a kernel launched that way waits for the kernel before it in the
// stream; that kernel may let it be scheduled before it ends.
#pragma once

namespace ufunc::detail {

/// In a kernel launched by cuda_launch::launch_dependent: waits until the
/// kernel before it in the stream has finished and its writes are visible (a
/// no-op in a kernel launched as usual, and before sm_90).
__device__ __forceinline__ void grid_dependency_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/// Lets a dependent launch of the next kernel in the stream be scheduled once
/// every block of this one has called it (or exited).
__device__ __forceinline__ void trigger_dependents() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

}  // namespace ufunc::detail
