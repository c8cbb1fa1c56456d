// Atomic read-modify-write operations for kernel bodies (parallel_for, ufuncs),
// with one spelling for both backends: CUDA's atomic instructions in device code,
// the compiler's __atomic builtins on the host (so OpenMP threads of the host
// backend update memory atomically too).
#pragma once

#include <type_traits>

#include "config.hpp"
#include "detail/atomic.hpp"   // the device and host updates (detail::)
#include "detail/element.hpp"  // element_traits::has_atomics

#if !UFUNC_DEVICE_PASS && !defined(__GNUC__) && !defined(__clang__)
#  error "ufunc/atomic.hpp: the host side uses the GCC/Clang __atomic builtins"
#endif

namespace ufunc {
// All operations are atomic with respect to every other ufunc atomic on the same
// address (on the device: by all threads of the device; on the host: by all
// threads of the process), return the value the address held just before, as
// CUDA's atomicAdd and friends do, and impose no ordering on other memory
// accesses (relaxed, like CUDA's). `addr` must be aligned to the element size.
// Element types: int, unsigned, long, unsigned long, long long, unsigned long
// long, float, double, __half, __nv_bfloat16. Integer arithmetic wraps (two's
// complement). __half and __nv_bfloat16: atomic_add/sub are CUDA's atomicAdd
// on the device (one rounding to nearest even per update; __nv_bfloat16 needs
// compute capability 8.0 natively, the CUDA header emulates it before), a
// compare-and-swap loop on the host with the same rounding; min/max/exch/cas
// use the 16-bit atomicCAS (compute capability 7.0).
// `atomic_exch` and `atomic_load` complete the set (CUDA's atomicExch, and a
// coherent read for compare-and-swap loops).

/// `*addr += val`; returns the old value.
template <class T>
UFUNC_HD T atomic_add(T* addr, detail::value_of_t<T> val) noexcept {
  UFUNC_DETAIL_ATOMIC_TYPE_CHECK(T);
#if UFUNC_DEVICE_PASS
  return detail::device_add<T>(addr, val);
#else
  if constexpr (std::is_integral_v<T>)
    return __atomic_fetch_add(addr, val, __ATOMIC_RELAXED);
  else
    return detail::host_update(addr, [val](T old) { return old + val; });
#endif
}

/// `*addr -= val`; returns the old value.
template <class T>
UFUNC_HD T atomic_sub(T* addr, detail::value_of_t<T> val) noexcept {
  UFUNC_DETAIL_ATOMIC_TYPE_CHECK(T);
#if UFUNC_DEVICE_PASS
  using W = detail::cuda_word_t<T>;
  if constexpr (detail::is_float_kind_v<T>)
    return atomicAdd(addr, -val);
  else if constexpr (sizeof(T) == 8)  // no 64-bit atomicSub: add the two's complement
    return static_cast<T>(atomicAdd(reinterpret_cast<unsigned long long*>(addr), 0ull - static_cast<unsigned long long>(val)));
  else
    return static_cast<T>(atomicSub(reinterpret_cast<W*>(addr), static_cast<W>(val)));
#else
  if constexpr (std::is_integral_v<T>)
    return __atomic_fetch_sub(addr, val, __ATOMIC_RELAXED);
  else
    return detail::host_update(addr, [val](T old) { return old - val; });
#endif
}

/// `*addr = min(*addr, val)`; returns the old value. For floating types the
/// value is written only when `val < *addr`, so a NaN never goes in and a NaN
/// already there stays (comparisons with NaN are false).
template <class T>
UFUNC_HD T atomic_min(T* addr, detail::value_of_t<T> val) noexcept {
  UFUNC_DETAIL_ATOMIC_TYPE_CHECK(T);
  return detail::atomic_extremum<false, T>(addr, val);
}

/// `*addr = max(*addr, val)`; returns the old value. NaNs as for atomic_min.
template <class T>
UFUNC_HD T atomic_max(T* addr, detail::value_of_t<T> val) noexcept {
  UFUNC_DETAIL_ATOMIC_TYPE_CHECK(T);
  return detail::atomic_extremum<true, T>(addr, val);
}

/// `*addr = val`; returns the old value.
template <class T>
UFUNC_HD T atomic_exch(T* addr, detail::value_of_t<T> val) noexcept {
  UFUNC_DETAIL_ATOMIC_TYPE_CHECK(T);
#if UFUNC_DEVICE_PASS
  if constexpr (detail::is_half_v<T>)
    return detail::device_exch_cas(addr, val);
  else if constexpr (std::is_same_v<T, double>)  // atomicExch has no double overload: exchange the bits
    return detail::from_bits<T>(atomicExch(reinterpret_cast<unsigned long long*>(addr), detail::to_bits(val)));
  else if constexpr (sizeof(T) == 8)
    return static_cast<T>(atomicExch(reinterpret_cast<unsigned long long*>(addr), static_cast<unsigned long long>(val)));
  else
    return static_cast<T>(atomicExch(reinterpret_cast<detail::cuda_word_t<T>*>(addr), static_cast<detail::cuda_word_t<T>>(val)));
#else
  T old;
  __atomic_exchange(addr, &val, &old, __ATOMIC_RELAXED);
  return old;
#endif
}

/// Reads `*addr` atomically (never torn, never a stale cached copy on the device):
/// the way to read a value other threads update with these atomics, e.g. the
/// first guess of a compare-and-swap loop.
template <class T>
UFUNC_HD T atomic_load(const T* addr) noexcept {
  UFUNC_DETAIL_ATOMIC_TYPE_CHECK(T);
#if UFUNC_DEVICE_PASS
  return detail::device_volatile_load(addr);
#else
  T v;
  __atomic_load(addr, &v, __ATOMIC_RELAXED);
  return v;
#endif
}

/// Compare and swap: `if (*addr == compare) *addr = val`, as one atomic step;
/// returns the old value (equal to `compare` exactly when the swap happened).
/// float and double compare bit patterns (as std::atomic does): -0.0 differs from
/// +0.0, and a NaN matches the same NaN. The building block for any other atomic
/// update: `T old = atomic_load(p), seen; do { seen = old; old = atomic_cas(p, seen, f(seen)); } while (old != seen);`
/// (compare bits rather than with `!=` for floats that may be NaN).
template <class T>
UFUNC_HD T atomic_cas(T* addr, detail::value_of_t<T> compare, detail::value_of_t<T> val) noexcept {
  UFUNC_DETAIL_ATOMIC_TYPE_CHECK(T);
#if UFUNC_DEVICE_PASS
  return detail::device_cas(addr, compare, val);
#else
  __atomic_compare_exchange(addr, &compare, &val, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  return compare;  // on failure the exchange wrote the current value here
#endif
}

}  // namespace ufunc
