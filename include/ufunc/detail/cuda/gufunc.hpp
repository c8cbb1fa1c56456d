// CUDA backend of gufunc calls: which inputs the kernel stages through shared
// memory (gufunc_plan.hpp's plan_gufunc_staging, within this device's shared
// memory) and the launch of kernels/gufunc_staged.cuh.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include <cuda/std/tuple>

#include "../../error.hpp"
#include "../../stream.hpp"
#include "../gufunc_plan.hpp"
#include "launch.hpp"

#if defined(__CUDACC__)
#  include "kernels/gufunc_staged.cuh"
#endif

// Tuning (bench/NOTES.md, session 17): loop elements a block runs (64: against
// 128, the dot over rows of 64 floats, rows of 16 and the 3x3 solves each ran 1-2 %
// faster on an H200), loads in flight a thread while it stages through registers
// (4: the copy's registers cap every gufunc kernel's resident threads; 8 ran rows
// of 16 floats at 0.80 of a copy's rate, 4 at 0.93-0.95), threads an SM, the
// smallest core block staged without 16-byte loads (bytes), the smallest copied
// with cp.async (bytes), and the shared memory its staged inputs may take (0:
// none staged, every operand read in place).
#ifndef UFUNC_GUFUNC_BLOCK
#  define UFUNC_GUFUNC_BLOCK 64
#endif
#ifndef UFUNC_GUFUNC_UNROLL
#  define UFUNC_GUFUNC_UNROLL 4
#endif
#ifndef UFUNC_GUFUNC_STAGE_MIN
#  define UFUNC_GUFUNC_STAGE_MIN 128
#endif
#ifndef UFUNC_GUFUNC_SM_THREADS
#  define UFUNC_GUFUNC_SM_THREADS 2048
#endif
#ifndef UFUNC_GUFUNC_ASYNC_MIN
#  define UFUNC_GUFUNC_ASYNC_MIN 256
#endif
#ifndef UFUNC_GUFUNC_SMEM
#  define UFUNC_GUFUNC_SMEM (96 * 1024)
#endif

namespace ufunc::detail {

template <class Target>
struct gufunc_backend;

template <>
struct gufunc_backend<target::cuda> {
  /// Loop elements a block runs (one a thread).
  static constexpr index_t block = UFUNC_GUFUNC_BLOCK;

  /// f over the n > 0 loop elements of plan p, whose first `nin` operands are inputs.
  template <class Body>
  static void run(const Body& body, const gufunc_plan& p, std::size_t nin, index_t n, stream_ref s) {
#if defined(__CUDACC__)
    std::vector<std::size_t> size(nin);
    std::vector<std::uintptr_t> addr(nin);
    describe(body, size, addr, std::make_index_sequence<Body::nops>{});
    // Up to 96 KiB a block: two blocks an SM stay resident on an H100 or H200.
    const std::size_t budget =
        std::min<std::size_t>(UFUNC_GUFUNC_SMEM, static_cast<std::size_t>(cuda_launch::current_device().smem_optin));
    std::size_t bytes = 0;
    const std::vector<gufunc_stage> st =
        plan_gufunc_staging(p, size, addr, block, budget, &bytes, UFUNC_GUFUNC_STAGE_MIN, UFUNC_GUFUNC_ASYNC_MIN);
    gufunc_stage_set<Body::nops> set{};
    for (std::size_t k = 0; k < st.size(); ++k) {
      set.on[k] = st[k].on;
      set.vec16[k] = st[k].vec16;
      set.async[k] = st[k].async;  // kernel code for devices before sm_80 copies through registers
      set.async16[k] = st[k].async16;
      set.count[k] = static_cast<unsigned>(st[k].count);
      set.pad[k] = static_cast<unsigned>(st[k].pad);
      set.offset[k] = static_cast<unsigned>(st[k].offset);
      set.inv_count[k] = st[k].on ? 1.0f / static_cast<float>(st[k].count) : 0.0f;
    }
    const auto kernel = gufunc_staged_kernel<static_cast<int>(block), UFUNC_GUFUNC_UNROLL, Body>;
    if (bytes > 48 * 1024) cuda_launch::allow_dynamic_smem(kernel, bytes);
    // A grid-stride loop over blocks of elements, as many as the SMs hold
    // (UFUNC_GUFUNC_SM_THREADS each; at 1,024 a 3x3 solve ran at 0.61 of a
    // copy's rate, at 2,048 at 0.74).
    const auto per_sm = static_cast<unsigned>(std::max<index_t>(1, UFUNC_GUFUNC_SM_THREADS / block));
    const unsigned grid =
        std::min<unsigned>(cuda_launch::grid_for(n, block), static_cast<unsigned>(cuda_launch::sm_count()) * per_sm);
    kernel<<<grid, static_cast<unsigned>(block), bytes, s.get()>>>(body, set, n);
    UFUNC_CHECK_LAUNCH("gufunc_staged_kernel", s.get());
#else
    (void)body, (void)p, (void)nin, (void)n, (void)s;
    cuda_launch::require_nvcc<Body>();
#endif
  }

 private:
  // Inputs' element sizes (0: not trivially copyable, never staged) and first
  // blocks' addresses.
  template <class Body, std::size_t... K>
  static void describe(const Body& body, std::vector<std::size_t>& size, std::vector<std::uintptr_t>& addr,
                       std::index_sequence<K...>) {
    (
        [&] {
          if (K >= size.size()) return;
          const auto* d = cuda::std::get<K>(body.args).core.data();
          using T = std::remove_const_t<std::remove_pointer_t<decltype(d)>>;
          size[K] = std::is_trivially_copyable_v<T> ? sizeof(T) : 0;
          addr[K] = reinterpret_cast<std::uintptr_t>(d);
        }(),
        ...);
  }
};

}  // namespace ufunc::detail
