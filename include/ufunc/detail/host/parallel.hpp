// The one place the host backend starts OpenMP threads: body(i) for i in [0, n)
// as an `omp parallel for` (static schedule: callers cut their work into chunks
// sized for balance). A plain pragma rather than Thrust's OMP system: the same
// loop, without parsing Thrust's OMP headers in every translation unit (about
// 10% of a call site's nvcc time). Exceptions thrown by a body (a user function,
// a UFUNC_DEBUG bounds error) cannot leave an OpenMP region: each is caught, the
// one from the lowest item is kept and rethrown on the caller's thread.
#pragma once

#include <omp.h>

#include <atomic>
#include <exception>
#include <mutex>

#include "../../config.hpp"

namespace ufunc::detail::host {

/// Calls body(i) for every i in [0, n) on the OpenMP threads; n <= 1 runs on the
/// caller's thread. If bodies throw, the exception of the lowest throwing i is
/// rethrown here, whatever the thread count or timing: what a serial loop would
/// throw when each body works through its item in order. Items below it all run;
/// items above it that have not started are skipped. The team has at most n
/// threads (idle members would still wait at the region's barrier, which costs
/// most when the cores are oversubscribed) and at most `max_threads` when that is
/// positive.
template <class Body>
void parallel_n(index_t n, const Body& body, int max_threads = 0) {
  if (n <= 0) return;
  if (n == 1) {
    body(index_t(0));
    return;
  }
  std::atomic<index_t> failed{n};  // lowest item that threw so far (n: none)
  std::exception_ptr error;
  std::mutex error_mutex;
  int team = omp_get_max_threads();
  if (max_threads > 0 && max_threads < team) team = max_threads;
  if (n < team) team = static_cast<int>(n);
#pragma omp parallel for schedule(static) num_threads(team)
  for (index_t i = 0; i < n; ++i) {
    if (i > failed.load(std::memory_order_relaxed)) continue;
    try {
      body(i);
    } catch (...) {
      const std::lock_guard<std::mutex> lock(error_mutex);
      if (i < failed.load(std::memory_order_relaxed)) {
        error = std::current_exception();
        failed.store(i, std::memory_order_relaxed);
      }
    }
  }
  if (error) std::rethrow_exception(error);
}

/// Bound of the slot numbers parallel_n_slots hands out from a call made now.
inline int parallel_slots() { return omp_get_max_threads(); }

/// parallel_n with body(i, slot): slot, in [0, parallel_slots()), is the index of
/// the thread running item i, so per-thread scratch can be allocated before the
/// loop, on the calling thread (where running out of memory throws before any
/// item has run, instead of inside the region after other items wrote results).
template <class Body>
void parallel_n_slots(index_t n, const Body& body) {
  if (n == 1) {  // parallel_n runs it on the caller without a region
    body(index_t(0), 0);
    return;
  }
  // The region's team has at most omp_get_max_threads() threads (no num_threads
  // clause); nested inside an active region it has one.
  parallel_n(n, [&](index_t i) { body(i, omp_get_thread_num()); });
}

}  // namespace ufunc::detail::host
