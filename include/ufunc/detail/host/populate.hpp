// Host memory's pages faulted in ahead of a write, by several threads: a fresh
// allocation's first touch (one page fault per 4 KiB page) otherwise runs on the
// one thread that zero-fills it (a 4 MiB std::vector cost 285 us on the H200
// machine, bench_stream).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#if defined(__linux__)
#  include <sys/mman.h>
#  include <unistd.h>
#endif

#include "parallel.hpp"

namespace ufunc::detail::host {

/// Populates (faults in, writable) the whole pages inside [p, p + bytes), pieces
/// spread over the OpenMP threads; contents unchanged. A hint: does nothing where
/// the system lacks MADV_POPULATE_WRITE (Linux before 5.14, other systems).
inline void populate_for_write(void* p, std::size_t bytes) {
#if defined(__linux__)
#  if !defined(MADV_POPULATE_WRITE)
  constexpr int MADV_POPULATE_WRITE = 23;  // <linux/mman.h>, Linux 5.14
#  endif
  static const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t first = (a + page - 1) / page * page, last = (a + bytes) / page * page;
  if (last <= first) return;
  constexpr std::size_t piece = std::size_t(256) << 10;
  const std::size_t span = last - first;
  const auto n = static_cast<index_t>((span + piece - 1) / piece);
  parallel_n(n, [&](index_t i) {
    const std::size_t off = static_cast<std::size_t>(i) * piece;
    // EINVAL (an older kernel) or ENOMEM: nothing populated; the write faults as usual.
    (void)madvise(reinterpret_cast<void*>(first + off), std::min(piece, span - off), MADV_POPULATE_WRITE);
  });
#else
  (void)p;
  (void)bytes;
#endif
}

}  // namespace ufunc::detail::host
