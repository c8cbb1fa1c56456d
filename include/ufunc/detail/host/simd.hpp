// The instruction set of the host backend's loops, chosen at run time. A header
// library is compiled with its user's flags, and the default x86-64 target
// (SSE2) leaves 3/4 of an AVX-512 core's vector width unused: NumPy dispatches
// its loops at run time, and so do we. With GCC on x86-64, when the translation
// unit's own target has neither AVX2 nor FMA (the default build), the loops of
// contiguous elementwise calls (and of mapped reductions' leaves, and matmul's
// micro-kernel) are also compiled for AVX2 and for AVX-512 (F, BW, DQ, VL), and
// the widest set the CPU and OS support runs. simd_run's results are bit for bit
// the same on every path, NaN payloads aside: its clones are compiled with
// fp-contract off (no a * b + c fused into an FMA, which the baseline cannot do
// either), and vector IEEE operations round as the scalar ones do
// (simd_run_fused, for matmul, allows FMA). A user who chooses -mavx2, -mfma or
// -march=... gets exactly that code and no dispatch. UFUNC_HOST_SIMD=baseline|avx2
// in the environment caps the choice (read once); UFUNC_NO_HOST_DISPATCH turns
// the clones off at compile time (their cost: two more compilations of each
// cloned loop; docs/ARCHITECTURE.md has the figures).
#pragma once

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#if defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__) && defined(__x86_64__) && \
    !defined(__AVX2__) && !defined(__FMA__) && !defined(UFUNC_NO_HOST_DISPATCH)
#  define UFUNC_HOST_DISPATCH 1
#else
#  define UFUNC_HOST_DISPATCH 0
#endif

#if defined(__GNUC__)
// A loop body inlined into the clone that calls it: the clone's target then
// applies to the loop (a call to a separately compiled body would run baseline code).
#  define UFUNC_HOST_INLINE __attribute__((always_inline))
#else
#  define UFUNC_HOST_INLINE
#endif

// Unrolls the next loop n times (GCC, clang); nothing where the pragma is unknown
// (nvcc's front end warns about GCC pragmas; MSVC).
#if defined(__GNUC__) && !defined(__CUDACC__)
#  define UFUNC_HOST_PRAGMA(x) _Pragma(#x)
#  define UFUNC_HOST_UNROLL(n) UFUNC_HOST_PRAGMA(GCC unroll n)
#else
#  define UFUNC_HOST_UNROLL(n)
#endif

namespace ufunc::detail::host {

/// The vector registers' bytes of the translation unit's own target.
#if defined(__AVX512F__)
inline constexpr int native_vector_bytes = 64;
#elif defined(__AVX__)
inline constexpr int native_vector_bytes = 32;
#else
inline constexpr int native_vector_bytes = 16;
#endif

/// Instruction sets of the host loops, narrowest first.
enum class simd_isa : int { baseline = 0, avx2 = 1, avx512 = 2 };

/// The widest set this CPU and OS run, capped by UFUNC_HOST_SIMD. The same in
/// every host translation unit, cloned or not (one definition: a translation unit
/// without the clones runs its own code whatever this says).
inline simd_isa detect_simd_isa() noexcept {
#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__) && !defined(__CUDA_ARCH__)
  __builtin_cpu_init();
  simd_isa isa = simd_isa::baseline;
  if (__builtin_cpu_supports("avx2")) isa = simd_isa::avx2;
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
    isa = simd_isa::avx512;
  if (const char* e = std::getenv("UFUNC_HOST_SIMD")) {
    simd_isa cap = isa;
    if (!std::strcmp(e, "baseline")) cap = simd_isa::baseline;
    if (!std::strcmp(e, "avx2")) cap = simd_isa::avx2;
    if (static_cast<int>(cap) < static_cast<int>(isa)) isa = cap;
  }
  return isa;
#else
  return simd_isa::baseline;
#endif
}

/// The set the loops use now: detected once; tests set it to compare the paths.
inline std::atomic<int>& simd_isa_in_use() noexcept {
  static std::atomic<int> isa{static_cast<int>(detect_simd_isa())};
  return isa;
}

// The host loops' functions are compiled as at -O3 in any optimised build (GCC,
// `optimize("O3")`; -O0 builds are left as they are): at -O2 GCC vectorises only
// with its "very cheap" cost model (GCC 12: no loop whose trip count is unknown,
// which is every loop here) and runs neither loop unswitching nor peeling, so a
// user's -O2 build (CMake's RelWithDebInfo, most distributions' flags) ran the
// host loops scalar: on the 2-core VM a 2^20 gaussian_pdf took 10.5 ms against 1.5
// at -O3, a lazy expression of 2^20 19.7 ms against 1.5, and a float sum read at
// half the speed (bench/NOTES.md, eleventh session). -f options given on the
// command line (-fno-strict-aliasing, -fwrapv) still apply to these functions.
// Not under a sanitizer (a checking build, not a fast one: under -Og with ASan it
// cost a third more compile time, test_reduce_axes.cpp 31 -> 42 s of CPU).
#if defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__) && defined(__OPTIMIZE__) && \
    !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#  define UFUNC_HOST_O3 , "O3"
#  define UFUNC_HOST_LOOP_ATTR __attribute__((optimize("O3")))
#else
#  define UFUNC_HOST_O3
#  define UFUNC_HOST_LOOP_ATTR
#endif

/// body() under the translation unit's own target, vectorised as at -O3.
template <class Body>
UFUNC_HOST_LOOP_ATTR auto simd_run_native(const Body& body) {
  return body();
}
template <class Body>
UFUNC_HOST_LOOP_ATTR void simd_run_fused_native(const Body& body) {
  body(std::integral_constant<int, native_vector_bytes>{});
}

#if UFUNC_HOST_DISPATCH
// Each clone clears the vector registers' upper halves (vzeroupper) before it
// returns to baseline (SSE) code. GCC inserts that itself only from -O2 on (its
// pass needs -fexpensive-optimizations); at -O1 or -Og the dirty upper state
// outlived the clone, and on Intel CPUs every later legacy-SSE instruction of the
// process paid for it: in CI's -Og + ASan build the host suite's pairwise case ran
// 4.5 s alone and 100-125 s after any host matmul (Xeon, 1 thread; bench/NOTES.md,
// twenty-first session). (The returned value is a scalar or void: only the upper
// halves are cleared.)
/// Clears the upper halves when a clone's scope ends, after its result is made
/// (target avx: inlined into the avx2 and avx512 clones, which include it).
struct simd_upper_clear {
  __attribute__((always_inline, target("avx"))) ~simd_upper_clear() { __builtin_ia32_vzeroupper(); }
};
template <class Body>
__attribute__((target("avx2"), optimize("fp-contract=off" UFUNC_HOST_O3))) auto simd_run_avx2(const Body& body) {
  const simd_upper_clear clear;
  return body();
}
template <class Body>
__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl"), optimize("fp-contract=off" UFUNC_HOST_O3))) auto simd_run_avx512(
    const Body& body) {
  const simd_upper_clear clear;
  return body();
}
template <class Body>
UFUNC_HOST_LOOP_ATTR __attribute__((target("avx2,fma"))) void simd_run_fused_avx2(const Body& body) {
  const simd_upper_clear clear;
  body(std::integral_constant<int, 32>{});
}
template <class Body>
UFUNC_HOST_LOOP_ATTR __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,fma"))) void simd_run_fused_avx512(const Body& body) {
  const simd_upper_clear clear;
  body(std::integral_constant<int, 64>{});
}
#endif

/// Returns body() compiled for the set in use. body must be a UFUNC_HOST_INLINE
/// lambda (it is inlined into each clone; so are the small functions it calls).
template <class Body>
auto simd_run(const Body& body) {
#if UFUNC_HOST_DISPATCH
  switch (static_cast<simd_isa>(simd_isa_in_use().load(std::memory_order_relaxed))) {
    case simd_isa::avx512: return simd_run_avx512(body);
    case simd_isa::avx2: return simd_run_avx2(body);
    case simd_isa::baseline: break;
  }
#endif
  return simd_run_native(body);
}

/// Runs body(width) compiled for the set in use, width a std::integral_constant:
/// the vector registers' bytes (64, 32; native_vector_bytes without a clone). Unlike simd_run, the clones may fuse
/// a * b + c (FMA): for loops whose results may depend on the CPU (matmul, as a
/// BLAS). body must be a UFUNC_HOST_INLINE generic lambda.
template <class Body>
void simd_run_fused(const Body& body) {
#if UFUNC_HOST_DISPATCH
  switch (static_cast<simd_isa>(simd_isa_in_use().load(std::memory_order_relaxed))) {
    case simd_isa::avx512: simd_run_fused_avx512(body); return;
    case simd_isa::avx2: simd_run_fused_avx2(body); return;
    case simd_isa::baseline: break;
  }
#endif
  simd_run_fused_native(body);
}

}  // namespace ufunc::detail::host
