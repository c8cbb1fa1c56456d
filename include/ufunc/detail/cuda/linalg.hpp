// The CUDA target's entries in the matmul/transpose registry (see ../linalg.hpp):
// the launchers of the kernels in kernels/matmul_*.cuh and transpose_*.cuh
// (linalg_launch.hpp, and the tensor_core and transpose_{naive,tiled} ones in kernels/).
// The wgmma kernel needs sm_90a code (CMAKE_CUDA_ARCHITECTURES=90a, the default
// of this project's build); without it the tensor_core variant runs mma.sync.
#pragma once

#include <array>

#include "../element.hpp"
#include "../linalg_plan.hpp"

#if defined(__CUDACC__)
#  include "linalg_launch.hpp"
#  include "matmul_tensor_core.hpp"
#  include "kernels/matmul_naive.cuh"
#  include "kernels/matmul_optimized.cuh"
#  include "kernels/matmul_tiled.cuh"
#  include "kernels/transpose_naive.cuh"
#  include "kernels/transpose_optimized.cuh"
#  include "kernels/transpose_tiled.cuh"
#endif

namespace ufunc::detail {

template <class Target>
struct linalg_registry;

template <>
struct linalg_registry<target::cuda> {
  static constexpr const char* name = "cuda";
  static constexpr std::array<matmul_variant, 3> matmul_variants{matmul_variant::naive, matmul_variant::tiled,
                                                                 matmul_variant::optimized};
  static constexpr std::array<transpose_variant, 3> transpose_variants{
      transpose_variant::naive, transpose_variant::tiled, transpose_variant::optimized};
  static constexpr matmul_variant matmul_fastest = matmul_variant::optimized;
  static constexpr transpose_variant transpose_fastest = transpose_variant::optimized;
  /// The variants for element type T: the SIMT kernels for float and double,
  /// and for float the opt-in tf32 (tensor cores, never the default); naive
  /// (float accumulation) and the tensor cores for the 16-bit floats.
  template <class T>
  static constexpr auto matmul_variants_for() {
    if constexpr (is_complex_v<T>)  // one real product (matmul_call.hpp): the real type's kernels
      return matmul_variants_for<typename T::value_type>();
    else if constexpr (is_matmul16<T>)
      return std::array<matmul_variant, 2>{matmul_variant::naive, matmul_variant::tensor_core};
    else if constexpr (std::is_same_v<T, float>)
      return std::array<matmul_variant, 4>{matmul_variant::naive, matmul_variant::tiled, matmul_variant::optimized,
                                           matmul_variant::tf32};
    else
      return matmul_variants;
  }
  template <class T>
  static constexpr matmul_variant matmul_fastest_for() {
    return is_matmul16<T> ? matmul_variant::tensor_core : matmul_fastest;
  }
#if defined(__CUDACC__)
  static constexpr bool can_launch = true;
  template <class T>
  static auto matmul_impls() {
    if constexpr (is_matmul16<T>)
      return std::array<matmul_impl<T>, 2>{{{matmul_variant::naive, &launch_matmul_naive<T>},
                                            {matmul_variant::tensor_core, &launch_matmul_tensor_core<T>}}};
    else if constexpr (std::is_same_v<T, float>)
      return std::array<matmul_impl<T>, 4>{{{matmul_variant::naive, &launch_matmul_naive<T>},
                                            {matmul_variant::tiled, &launch_matmul_tiled<T>},
                                            {matmul_variant::optimized, &launch_matmul_optimized<T>},
                                            {matmul_variant::tf32, &launch_matmul_tf32<T>}}};
    else
      return std::array<matmul_impl<T>, 3>{{{matmul_variant::naive, &launch_matmul_naive<T>},
                                            {matmul_variant::tiled, &launch_matmul_tiled<T>},
                                            {matmul_variant::optimized, &launch_matmul_optimized<T>}}};
  }
  template <class S>
  static std::array<transpose_impl, 3> transpose_impls() {
    return {{{transpose_variant::naive, &launch_transpose_naive<S>},
             {transpose_variant::tiled, &launch_transpose_tiled<S>},
             {transpose_variant::optimized, &launch_transpose_optimized<S>}}};
  }
  template <class S>
  static copy_fn row_copy() {
    return &launch_transpose_naive<S>;  // per-element, coalesced on both sides when no dims swap
  }
#else
  static constexpr bool can_launch = false;
#endif
};

}  // namespace ufunc::detail
