// Copies into and out of the page-locked staging buffers of streamed calls
// (detail/cuda/stream_pipeline.hpp), whose next user is a DMA engine. Through
// the cache they halve its speed on the H100 machine (bench/NOTES.md, 2 MiB
// copies: 23 GB/s instead of 49 from lines the CPU had just written, 27 instead
// of 51 into lines it had read): the engine then snoops or invalidates lines the
// cores hold. So a copy into staging uses streaming (non-temporal) stores, which
// leave nothing in the cache, and a copy out of staging evicts the lines it read
// (CLFLUSHOPT). Where neither exists (not x86-64 with GCC or Clang, a CPU
// without CLFLUSHOPT) these are plain memcpy.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#  include <cpuid.h>
#  include <emmintrin.h>
#  define UFUNC_STAGING_X86 1
#endif

namespace ufunc::detail::host {

/// memcpy whose stores bypass the cache (SSE2 streaming stores for the 16-byte
/// aligned part of dst), then a store fence: the bytes are in memory, not in
/// this core's cache, when it returns. dst and src must not overlap.
inline void copy_streaming(void* dst, const void* src, std::size_t bytes) {
#if defined(UFUNC_STAGING_X86)
  auto* d = static_cast<char*>(dst);
  const auto* s = static_cast<const char*>(src);
  const std::size_t head = std::min(bytes, (16 - reinterpret_cast<std::uintptr_t>(d) % 16) % 16);
  std::memcpy(d, s, head);
  d += head;
  s += head;
  bytes -= head;
  const std::size_t body = bytes / 16 * 16;
  for (std::size_t k = 0; k < body; k += 16)
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + k), _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + k)));
  std::memcpy(d + body, s + body, bytes - body);
  _mm_sfence();
#else
  std::memcpy(dst, src, bytes);
#endif
}

/// True where the CPU has CLFLUSHOPT (CPUID leaf 7, EBX bit 23).
inline bool has_clflushopt() {
#if defined(UFUNC_STAGING_X86)
  static const bool yes = [] {
    unsigned a = 0, b = 0, c = 0, d = 0;
    return __get_cpuid_count(7, 0, &a, &b, &c, &d) != 0 && (b & (1u << 23)) != 0;
  }();
  return yes;
#else
  return false;
#endif
}

/// Evicts the cache lines of [p, p + bytes) (contents unchanged) where the CPU
/// has CLFLUSHOPT; else nothing. (CLFLUSH, which every x86-64 has, is ordered
/// against every other flush: a 2 MiB drain took 283 us with it, 38 us with
/// CLFLUSHOPT, 12 us without either.)
inline void evict_lines(const void* p, std::size_t bytes) {
#if defined(UFUNC_STAGING_X86)
  if (!bytes || !has_clflushopt()) return;
  const std::uintptr_t first = reinterpret_cast<std::uintptr_t>(p) / 64 * 64,
                       end = reinterpret_cast<std::uintptr_t>(p) + bytes;
  // The instruction as text: no target attribute or -mclflushopt needed.
  for (std::uintptr_t x = first; x < end; x += 64)
    asm volatile("clflushopt %0" : "+m"(*reinterpret_cast<volatile char*>(x)));
  _mm_sfence();
#else
  (void)p;
  (void)bytes;
#endif
}

/// memcpy, then the source's lines evicted (evict_lines).
inline void copy_evicting_source(void* dst, const void* src, std::size_t bytes) {
  std::memcpy(dst, src, bytes);
  evict_lines(src, bytes);
}

}  // namespace ufunc::detail::host
