// CUDA backend of parallel_for: the launch shape (the occupancy API's, cached per
// kernel and device, or the caller's checked launch_config) and the launch of the
// grid-stride kernel (kernels/parallel_for.cuh).
#pragma once

#include <algorithm>
#include <array>
#include <mutex>
#include <string>

#include "../../error.hpp"
#include "../../launch_config.hpp"
#include "../launch_check.hpp"
#include "../../stream.hpp"
#include "launch.hpp"

#if defined(__CUDACC__)
#  include "kernels/parallel_for.cuh"
#endif

namespace ufunc::detail {

template <class Target>
struct parallel_for_backend;

template <>
struct parallel_for_backend<target::cuda> {
  template <int R, class F>
  static void run(const F& f, const std::array<index_t, 3>& dims, index_t n, checked_launch cfg, stream_ref s) {
#if defined(__CUDACC__)
    const auto kernel = parallel_for_kernel<R, F>;
    const kernel_limits& lim = limits_for<R, F>();
    unsigned blocks = 0, threads = 0;
    if (cfg.given) {
      if (cfg.threads > static_cast<unsigned>(lim.max_threads))
        throw value_error("parallel_for: launch_config asks for " + std::to_string(cfg.threads) +
                          " threads per block but this kernel can run at most " + std::to_string(lim.max_threads) +
                          " (its register use limits it; tools that instrument kernels, such as compute-sanitizer, add registers)");
      blocks = cfg.blocks;
      threads = cfg.threads;
    } else {
      // The occupancy API's block size, and no more blocks than fill the device
      // once (min_grid) or than the work needs: the grid-stride loop covers the rest.
      threads = static_cast<unsigned>(lim.block);
      const index_t needed = (n + threads - 1) / threads;
      blocks = static_cast<unsigned>(std::max<index_t>(1, std::min<index_t>(needed, lim.min_grid)));
    }
    index_space<R> sp{};
    for (int d = 0; d < R; ++d) sp.dims[d] = dims[static_cast<std::size_t>(d)];
    sp.n = n;
    kernel<<<blocks, threads, 0, s.get()>>>(f, sp);
    UFUNC_CHECK_LAUNCH("parallel_for_kernel", s.get());
#else
    (void)f, (void)dims, (void)n, (void)cfg, (void)s;
    cuda_launch::require_nvcc<F>();
#endif
  }

#if defined(__CUDACC__)
  /// What the occupancy API says about one kernel on one device.
  struct kernel_limits {
    int block = 0;        ///< block size of maximum occupancy
    int min_grid = 0;     ///< blocks that fill every SM at that occupancy
    int max_threads = 0;  ///< largest block the kernel can be launched with
  };

  /// Asked once per kernel and device, then cached (the query walks every block size).
  template <int R, class F>
  static const kernel_limits& limits_for() {
    constexpr int max_devices = 64;
    static kernel_limits cache[max_devices];
    static std::once_flag once[max_devices];
    int dev = 0;
    UFUNC_CUDA_CHECK(cudaGetDevice(&dev));
    if (dev < 0 || dev >= max_devices) throw cuda_error("ufunc::parallel_for: device ordinal out of range", 0);
    std::call_once(once[dev], [dev] {
      kernel_limits l;
      UFUNC_CUDA_CHECK(cudaOccupancyMaxPotentialBlockSize(&l.min_grid, &l.block, parallel_for_kernel<R, F>, 0, 0));
      cudaFuncAttributes attr{};
      UFUNC_CUDA_CHECK(cudaFuncGetAttributes(&attr, parallel_for_kernel<R, F>));
      l.max_threads = attr.maxThreadsPerBlock;
      cache[dev] = l;
    });
    return cache[dev];
  }
#endif
};

}  // namespace ufunc::detail
