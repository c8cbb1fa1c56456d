// Launch utilities every CUDA launcher shares: device attributes (the
// runtime's per-device context, read once per device), grid sizing, the
// alignment test and the register type for vector accesses, and the one "must
// be compiled by nvcc" check. Host code (the register type is host-device); the device queries exist
// in CUDA-backend builds only.
#pragma once

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <mutex>
#include <vector>

#include "../../config.hpp"
#include "../../error.hpp"
#include "runtime.hpp"

namespace ufunc::detail::cuda_launch {

#if defined(UFUNC_BACKEND_CUDA)
/// Attributes of one device that launchers size grids with: the per-device
/// context of the runtime (detail/cuda/runtime.hpp), read once per device.
using device_attributes = runtime<target::cuda>::device_context;

/// The current device's attributes: read on first use per device, then cached.
/// Safe to call from several host threads at once.
inline const device_attributes& current_device() { return runtime<target::cuda>::current_context(); }

/// Multiprocessors of the current device.
inline int sm_count() { return current_device().sm_count; }

/// Blocks of `kernel` (at `block` threads, no dynamic shared memory) resident
/// at once on one multiprocessor of the current device: asked once per device,
/// kernel and block size, then cached. Safe to call from several host threads.
template <class Kernel>
int resident_blocks(Kernel* kernel, int block) {
  auto& c = runtime<target::cuda>::current_context();
  const void* fn = reinterpret_cast<const void*>(kernel);
  {
    std::lock_guard<std::mutex> lock(c.m);
    for (const auto& e : c.occupancy)
      if (e.fn == fn && e.block == block) return e.blocks;
  }
  int blocks = 0;
  UFUNC_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, block, 0));
  blocks = std::max(blocks, 1);
  std::lock_guard<std::mutex> lock(c.m);
  // Another thread may have asked the same question meanwhile (the query runs
  // unlocked): keep one entry per key.
  for (const auto& e : c.occupancy)
    if (e.fn == fn && e.block == block) return e.blocks;
  c.occupancy.push_back({fn, block, blocks});
  return blocks;
}

/// Lets `kernel` be launched on the current device with `bytes` of dynamic shared
/// memory (above the 48 KiB default; at most smem_optin). The attribute is one
/// value per kernel and device shared by every host thread, so it only ever
/// grows, under the device context's lock: setting it to each call's own need
/// would let one thread lower it between another thread's setting and launch,
/// and that launch would fail for asking more than the limit.
template <class Kernel>
void allow_dynamic_smem(Kernel* kernel, std::size_t bytes) {
  auto& c = runtime<target::cuda>::current_context();
  const void* fn = reinterpret_cast<const void*>(kernel);
  std::lock_guard<std::mutex> lock(c.m);
  runtime<target::cuda>::device_context::smem_fact* e = nullptr;
  for (auto& x : c.smem_allowed)
    if (x.fn == fn) e = &x;
  if (e && e->bytes >= bytes) return;
  UFUNC_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
  if (e)
    e->bytes = bytes;
  else
    c.smem_allowed.push_back({fn, bytes});
}

/// kernel<<<grid, block, 0, s>>>(args...) as a programmatic dependent launch
/// (sm_90 on; older devices launch it as usual): its blocks may be scheduled
/// while the kernel before it in `s` is still running, once that kernel's blocks
/// have all called trigger_dependents() or exited, so that its launch latency
/// is hidden. The kernel must call grid_dependency_wait()
/// (kernels/grid_dependency.cuh) before touching memory the earlier kernel writes
/// or reads. A launch error is left for the caller's UFUNC_CHECK_LAUNCH (the
/// runtime keeps it as its last error).
template <class... P, class... A>
void launch_dependent(void (*kernel)(P...), dim3 grid, dim3 block, cudaStream_t s, const A&... args) {
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = grid;
  cfg.blockDim = block;
  cfg.dynamicSmemBytes = 0;
  cfg.stream = s;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  (void)cudaLaunchKernelEx(&cfg, kernel, args...);
}
#  if defined(__CUDACC__)
/// kernel<<<grid, block, smem, s>>>(args...), for launchers that kernel files
/// hand to CUB (kernels/reduce_all.cuh's finish_in_first_pass): the launch
/// itself stays in this layer.
template <class K, class... A>
void launch(K kernel, dim3 grid, dim3 block, std::size_t smem, cudaStream_t s, const A&... args) {
  kernel<<<grid, block, smem, s>>>(args...);
}
#  endif
#endif  // UFUNC_BACKEND_CUDA

/// Blocks for `work` items at `per_block` items each: at least 1, at most the
/// x-dimension limit (kernels loop over the rest).
inline unsigned grid_for(index_t work, index_t per_block) {
  const index_t g = (work + per_block - 1) / per_block;
  return static_cast<unsigned>(std::max<index_t>(1, std::min<index_t>(g, INT_MAX)));
}

/// The one "must be compiled by nvcc" check: a CUDA-target call instantiated in a
/// file the host compiler compiles stops here (T keeps it dependent, so merely
/// including the headers in such a file is fine).
template <class T>
constexpr void require_nvcc() {
  static_assert(sizeof(T) == 0,
                "ufunc: a CUDA-target call (ufunc, reduction, accumulate, matmul, transpose or parallel_for) must be "
                "compiled by nvcc: put it in a .cu file or set the source's LANGUAGE to CUDA (or use "
                "ufunc::target::host arrays and functions)");
}

/// True when `p` is aligned to `bytes` (vector loads and stores need it).
inline bool is_aligned(const void* p, std::size_t bytes) { return reinterpret_cast<std::uintptr_t>(p) % bytes == 0; }

}  // namespace ufunc::detail::cuda_launch

namespace ufunc::detail {

/// Alignment of V packed T: the largest power of two dividing their size, at most
/// 16 (the widest access) and at least alignof(T).
constexpr std::size_t vec_align(std::size_t bytes, std::size_t min_align) {
  std::size_t a = 1;
  while (a < 16 && bytes % (a * 2) == 0) a *= 2;
  return a < min_align ? min_align : a;
}

/// A vector register of V elements, aligned so that one instruction moves it.
template <class T, int V>
struct alignas(vec_align(sizeof(T) * V, alignof(T))) vec_reg {
  T v[V];
};

}  // namespace ufunc::detail
