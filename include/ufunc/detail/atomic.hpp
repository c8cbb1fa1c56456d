// The pieces of atomic.hpp: CUDA's atomic instructions by word size, the
// compare-and-swap loops for what has no instruction, and the host's __atomic
// builtins, each for device and host code alike.
#pragma once

#include <type_traits>

#include "../config.hpp"
#include "element.hpp"

namespace ufunc::detail {

/// int, unsigned, long, unsigned long, long long, unsigned long long, float, double,
/// __half, __nv_bfloat16.
template <class T>
inline constexpr bool atomic_supported_v = element_traits<T>::has_atomics;
template <class T>
inline constexpr bool atomic_integral_v = atomic_supported_v<T> && std::is_integral_v<T>;

/// Keeps the value parameter out of template deduction, so `atomic_add(p, 1)`
/// works for an `unsigned*` or `float*` p (the value converts to the element type).
template <class T>
struct value_of {
  using type = T;
};
template <class T>
using value_of_t = typename value_of<T>::type;

#define UFUNC_DETAIL_ATOMIC_TYPE_CHECK(T)                                                                     \
  static_assert(::ufunc::detail::atomic_supported_v<T>,                                                     \
                "ufunc atomics: the element type must be int, unsigned, long, unsigned long, long long, "  \
                "unsigned long long, float, double, __half or __nv_bfloat16")

#if UFUNC_DEVICE_PASS
/// The type CUDA's atomic overloads take for T: the integer of the same size and
/// signedness (64-bit `long` is `long long` to CUDA), or the floating type itself
/// (CUDA's atomicAdd takes __half and __nv_bfloat16 too).
template <class T>
using cuda_word_t = std::conditional_t<
    is_float_kind_v<T>, T,
    std::conditional_t<sizeof(T) == 4, std::conditional_t<std::is_signed_v<T>, int, unsigned>,
                       std::conditional_t<std::is_signed_v<T>, long long, unsigned long long>>>;
/// The unsigned integer CUDA's atomicCAS takes for T's bits (the 16-bit CAS
/// needs compute capability 7.0).
template <class T>
using cuda_bits_t = std::conditional_t<sizeof(T) == 2, unsigned short,
                                       std::conditional_t<sizeof(T) == 4, unsigned, unsigned long long>>;

template <class T>
__device__ __forceinline__ cuda_bits_t<T> to_bits(T v) {
  cuda_bits_t<T> b;
  memcpy(&b, &v, sizeof b);
  return b;
}
template <class T>
__device__ __forceinline__ T from_bits(cuda_bits_t<T> b) {
  T v;
  memcpy(&v, &b, sizeof v);
  return v;
}

/// *addr += val with CUDA's atomicAdd; the value before (ufunc::atomic_add's
/// device side, and f.at's update for plus).
template <class T>
__device__ __forceinline__ T device_add(T* addr, T val) {
  using W = cuda_word_t<T>;
  if constexpr (std::is_same_v<W, long long>)  // CUDA has no signed 64-bit add; wrapping add is the same bits
    return static_cast<T>(atomicAdd(reinterpret_cast<unsigned long long*>(addr), static_cast<unsigned long long>(val)));
  else
    return static_cast<T>(atomicAdd(reinterpret_cast<W*>(addr), static_cast<W>(val)));
}

template <class T>
__device__ __forceinline__ T device_cas(T* addr, T compare, T val) {
  using B = cuda_bits_t<T>;
  return from_bits<T>(atomicCAS(reinterpret_cast<B*>(addr), to_bits(compare), to_bits(val)));
}

/// A volatile (L2, coherent) read of *addr; the 16-bit floats through their bits
/// (they have no volatile copy).
template <class T>
__device__ __forceinline__ T device_volatile_load(const T* addr) {
  if constexpr (is_half_v<T>)
    return from_bits<T>(*reinterpret_cast<const volatile cuda_bits_t<T>*>(addr));
  else
    return *reinterpret_cast<const volatile T*>(addr);
}

/// Writes `val` while `better(val, current)`; returns the value before. The first
/// read is volatile (L2, coherent), so a stale cached value cannot end the loop.
template <class T, class Better>
__device__ __forceinline__ T device_update_if(T* addr, T val, Better better) {
  T old = device_volatile_load(addr);
  while (better(val, old)) {
    const T seen = device_cas(addr, old, val);
    if (to_bits(seen) == to_bits(old)) break;  // our value went in
    old = seen;
  }
  return old;
}

/// *addr = val by compare-and-swap (atomicExch has no 16-bit form); the value before.
template <class T>
__device__ __forceinline__ T device_exch_cas(T* addr, T val) {
  T old = device_volatile_load(addr);
  for (;;) {
    const T seen = device_cas(addr, old, val);
    if (to_bits(seen) == to_bits(old)) return old;
    old = seen;
  }
}
#else
/// Host: writes `val` while `better(val, current)`; returns the value before.
template <class T, class Better>
inline T host_update_if(T* addr, T val, Better better) {
  T old;
  __atomic_load(addr, &old, __ATOMIC_RELAXED);
  // On failure the exchange stores the current value in `old`; the loop re-tests it.
  while (better(val, old) && !__atomic_compare_exchange(addr, &old, &val, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
  return old;
}
/// Host: *addr = op(*addr) for types without a fetch-op builtin (float, double,
/// __half, __nv_bfloat16: a lock-free compare-and-swap loop on their bits; the
/// 16-bit ones compute op in the CUDA headers' host arithmetic).
template <class T, class Op>
inline T host_update(T* addr, Op op) {
  static_assert(__atomic_always_lock_free(sizeof(T), 0), "ufunc atomics: the host's compare-and-swap must be lock-free");
  T old;
  __atomic_load(addr, &old, __ATOMIC_RELAXED);
  T desired = op(old);
  while (!__atomic_compare_exchange(addr, &old, &desired, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
    desired = op(old);
  return old;
}
#endif

struct less_than {
  template <class T>
  UFUNC_HD bool operator()(T a, T b) const { return a < b; }
};
struct greater_than {
  template <class T>
  UFUNC_HD bool operator()(T a, T b) const { return b < a; }
};

/// atomic_min (Max false) and atomic_max (Max true).
template <bool Max, class T>
UFUNC_HD T atomic_extremum(T* addr, T val) noexcept {
  using better = std::conditional_t<Max, greater_than, less_than>;
#if UFUNC_DEVICE_PASS
  using W = cuda_word_t<T>;
  if constexpr (is_float_kind_v<T>)
    return device_update_if(addr, val, better{});  // no native float min/max
  else if constexpr (Max)
    return static_cast<T>(atomicMax(reinterpret_cast<W*>(addr), static_cast<W>(val)));
  else
    return static_cast<T>(atomicMin(reinterpret_cast<W*>(addr), static_cast<W>(val)));
#else
  return host_update_if(addr, val, better{});
#endif
}

}  // namespace ufunc::detail
