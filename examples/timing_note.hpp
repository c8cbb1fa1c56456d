// What the examples' timings mean in this build. Under a sanitizer or without
// optimisation the library's layers (templates meant to be inlined) cost far
// more than a plain loop, so a printed speedup below 1 there says nothing about
// the library's speed; the examples then say so next to it.
#pragma once

#include <cstdio>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#  define UFUNC_EXAMPLE_INSTRUMENTED 1
#elif defined(__has_feature)
#  if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#    define UFUNC_EXAMPLE_INSTRUMENTED 1
#  endif
#endif
#if !defined(UFUNC_EXAMPLE_INSTRUMENTED) && !defined(__OPTIMIZE__)
#  define UFUNC_EXAMPLE_INSTRUMENTED 1
#endif

/// Prints a note under the timings of a sanitizer or unoptimised build.
inline void print_timing_note() {
#if defined(UFUNC_EXAMPLE_INSTRUMENTED)
  std::printf("  (a sanitizer or unoptimised build: these timings are not the library's speed;\n"
              "   build with -O2 or -O3 and no sanitizer to measure it)\n");
#endif
}
