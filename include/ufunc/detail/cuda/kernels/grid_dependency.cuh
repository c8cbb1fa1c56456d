// The device side of programmatic dependent launch (cuda_launch::launch_dependent,
// sm_90 on): a kernel launched that way waits for the kernel before it in the
// stream; that kernel may let it be scheduled before it ends. And the other way
// to order blocks of one reduction: the last block to finish does the rest.
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

/// For a kernel whose last block to finish reduces every block's partial
/// (threadFenceReduction): called by every thread of a block once its thread 0
/// has stored the block's partial. True, in every thread, in the last block to
/// arrive, which then sees every block's partial. `done` is a counter at zero
/// that the stream owns (scratch.hpp's finish_counters); that block sets it
/// back to zero when it is done.
__device__ __forceinline__ bool last_block_arrives(unsigned* done) {
  __shared__ bool last;
  if (threadIdx.x == 0) {
    __threadfence();  // the partial before the count
    last = atomicAdd(done, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return false;
  __threadfence();  // every partial counted is visible
  return true;
}

/// The 64-bit word at zero beside counter `done` (finish_counters' 16-byte
/// slots: the counter, then this word from byte 8): blocks may fold their
/// partials into it with atomics before they arrive; the last block reads it
/// and sets it back to zero.
__device__ __forceinline__ unsigned long long* finish_word(unsigned* done) {
  return reinterpret_cast<unsigned long long*>(done) + 1;
}

}  // namespace ufunc::detail
