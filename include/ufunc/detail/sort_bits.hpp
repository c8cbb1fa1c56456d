// The order bits of a sort key: an unsigned integer of the key's width whose
// ascending order is NumPy's sort order. Floats: NaN (any payload, either
// sign) one code above +inf, -0.0 the same code as +0.0 (equal keys keep
// their order in a stable sort), negative values' bits inverted and positive
// values' sign bit set; signed integers: the sign bit flipped; bool and
// unsigned integers: as they are. A sort on these bits is one instantiation
// per key width (1, 2, 4 or 8 bytes) instead of one per key type and
// direction: the CUDA backend sorts every pairs sort (argsort, topk, unique's
// positions) and every descending one this way (all bits inverted), so a
// translation unit that sorts int32, uint32 and float32 compiles CUB's pairs
// sorts once.
#pragma once

#include <cstddef>
#include <type_traits>

#include <cuda/std/cstring>
#include <cuda/std/limits>

#include "../config.hpp"
#include "element.hpp"

namespace ufunc::detail {

template <std::size_t N>
struct sort_uint;
template <>
struct sort_uint<1> {
  using type = unsigned char;
};
template <>
struct sort_uint<2> {
  using type = unsigned short;
};
template <>
struct sort_uint<4> {
  using type = unsigned int;
};
template <>
struct sort_uint<8> {
  using type = unsigned long long;
};
/// The unsigned integer of T's width.
template <class T>
using sort_uint_t = typename sort_uint<sizeof(T)>::type;

/// v's order bits (see above).
template <class T>
UFUNC_HD sort_uint_t<T> sort_order_bits(T v) {
  using U = sort_uint_t<T>;
  constexpr U sign = U(U(1) << (8 * sizeof(U) - 1));
  U b;
  if constexpr (element_traits<T>::is_floating) {
    if (is_nan(v)) v = cuda::std::numeric_limits<T>::quiet_NaN();
    ::cuda::std::memcpy(&b, &v, sizeof(U));
    if (b == sign) b = 0;  // -0.0: +0.0
    return (b & sign) ? U(~b) : U(b | sign);
  } else {
    ::cuda::std::memcpy(&b, &v, sizeof(U));
    if constexpr (std::is_signed_v<T>) return U(b ^ sign);
    else return b;
  }
}

/// The value whose order bits are e: sort_order_bits inverted, except that
/// every NaN comes back as T's quiet NaN and -0.0 as +0.0 (one code each).
template <class T>
UFUNC_HD T sort_from_order_bits(sort_uint_t<T> e) {
  using U = sort_uint_t<T>;
  constexpr U sign = U(U(1) << (8 * sizeof(U) - 1));
  U b = e;
  if constexpr (element_traits<T>::is_floating) b = (e & sign) ? U(e & U(~sign)) : U(~e);
  else if constexpr (std::is_signed_v<T>) b = U(e ^ sign);
  T v;
  ::cuda::std::memcpy(&v, &b, sizeof(T));
  return v;
}

/// The code of both zeros of a floating T (sort_order_bits(+0.0)).
template <class T>
inline constexpr sort_uint_t<T> sort_zero_bits = sort_uint_t<T>(sort_uint_t<T>(1) << (8 * sizeof(T) - 1));

/// argsort's key copy on a backend that sorts order bits
/// (sort_backend<Target>::sorts_order_bits): each key's order bits, kept in
/// T's storage (the backend reads them back as sort_uint_t<T>; for floats the
/// stored pattern is not a meaningful value and is only ever moved).
template <class T>
struct sort_key_bits {
  UFUNC_HD T operator()(const T& v) const {
    const sort_uint_t<T> b = sort_order_bits(v);
    T t;
    ::cuda::std::memcpy(&t, &b, sizeof(T));
    return t;
  }
};

}  // namespace ufunc::detail
