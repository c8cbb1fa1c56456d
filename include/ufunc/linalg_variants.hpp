// The variants of matmul and transpose a caller can name (a trailing argument of
// those calls). A vocabulary header: types only, no operation.
#pragma once

namespace ufunc {

/// The implementations of ufunc::matmul a caller can pick (last argument group
/// of a call, e.g. `ufunc::matmul(a, b, ufunc::matmul_variant::tiled)`).
/// `fastest` (the default) is the target's best for the element type:
/// `optimized` on CUDA for float and double, `tensor_core` on CUDA for 16-bit
/// floats, `blocked` on the host. The others name one implementation and are for teaching and
/// benchmarks; asking for one the target does not have throws value_error.
enum class matmul_variant {
  fastest,    ///< the target's default
  naive,      ///< CUDA: one thread per output element (the seed's kernel)
  tiled,      ///< CUDA: 16x16 shared-memory tiles (the seed's kernel, made correct)
  optimized,  ///< CUDA: register-blocked SIMT GEMM, double-buffered, split-k for few tiles
  blocked,    ///< host: cache-blocked, multi-threaded loops
  /// CUDA, 16-bit inputs (__half, __nv_bfloat16): the tensor cores with float
  /// accumulation (wgmma with TMA loads where the program has sm_90a code for a
  /// Hopper GPU, mma.sync otherwise; a plain kernel for unaligned operands)
  tensor_core,
  /// CUDA, float, opt-in: the tensor cores on inputs rounded to tf32 (10-bit
  /// mantissa, relative error about 1e-3 where FP32 gives 1e-6; float
  /// accumulation). Never the default. Plain FP32 where wgmma cannot run.
  tf32,
};

/// The implementations of ufunc::transpose a caller can pick; as for
/// matmul_variant, `fastest` (the default) is `optimized` on CUDA and `blocked`
/// on the host.
enum class transpose_variant {
  fastest,    ///< the target's default
  naive,      ///< CUDA: one thread per element (the seed's kernel)
  tiled,      ///< CUDA: padded 32x33 shared-memory tile (the seed's kernel)
  optimized,  ///< CUDA: 64x64 tiles, 16-byte accesses, a whole tile of loads in flight
  blocked,    ///< host: 32x32 blocks on all cores
};

inline const char* to_string(matmul_variant v) {
  switch (v) {
    case matmul_variant::fastest: return "fastest";
    case matmul_variant::naive: return "naive";
    case matmul_variant::tiled: return "tiled";
    case matmul_variant::optimized: return "optimized";
    case matmul_variant::blocked: return "blocked";
    case matmul_variant::tensor_core: return "tensor_core";
    case matmul_variant::tf32: return "tf32";
  }
  return "?";
}
inline const char* to_string(transpose_variant v) {
  switch (v) {
    case transpose_variant::fastest: return "fastest";
    case transpose_variant::naive: return "naive";
    case transpose_variant::tiled: return "tiled";
    case transpose_variant::optimized: return "optimized";
    case transpose_variant::blocked: return "blocked";
  }
  return "?";
}

}  // namespace ufunc
