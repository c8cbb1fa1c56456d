// The pieces of ufunc::random (random.hpp): the Philox4x32-10 rounds, cuRAND's
// conversions of its words into uniform and normal values, the integer map, the
// draw kinds a fill makes one Philox block's values with, the argument checks,
// and the fills of a range of memory (parallel_for over blocks).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "../config.hpp"
#include "../error.hpp"
#include "element.hpp"
#include "../array.hpp"
#include "../array_view.hpp"
#include "../shape.hpp"
#include "../stream.hpp"
#include "parallel_for_call.hpp"

namespace ufunc::random {

/// Four 32-bit words: a Philox counter or its output.
struct words {
  std::uint32_t x, y, z, w;
};

namespace detail {
UFUNC_HD inline std::uint32_t mulhilo(std::uint32_t a, std::uint32_t b, std::uint32_t* hi) {
  const std::uint64_t p = static_cast<std::uint64_t>(a) * b;
  *hi = static_cast<std::uint32_t>(p >> 32);
  return static_cast<std::uint32_t>(p);
}
UFUNC_HD inline words round(words c, std::uint32_t k0, std::uint32_t k1) {
  std::uint32_t hi0, hi1;
  const std::uint32_t lo0 = mulhilo(0xD2511F53u, c.x, &hi0);
  const std::uint32_t lo1 = mulhilo(0xCD9E8D57u, c.z, &hi1);
  return {hi1 ^ c.y ^ k0, lo1, hi0 ^ c.w ^ k1, lo0};
}
/// cuRAND's _curand_uniform: (0, 1], exact on every backend (x * 2^-32 is exact,
/// so a fused multiply-add rounds as the multiply and add do).
UFUNC_HD inline float to_uniform(std::uint32_t x) { return x * 2.3283064e-10f + (2.3283064e-10f / 2.0f); }
/// cuRAND's _curand_box_muller: device code uses __sincosf, host code sinf and
/// cosf, as cuRAND's own host path (the two differ by the intrinsic's error).
UFUNC_HD inline void box_muller(std::uint32_t x, std::uint32_t y, float* a, float* b) {
  const float u = to_uniform(x);
  const float v = y * (2.3283064e-10f * 6.2831855f) + ((2.3283064e-10f * 6.2831855f) / 2);
  const float s = sqrtf(-2.0f * logf(u));
#if defined(__CUDA_ARCH__)
  __sincosf(v, a, b);
#else
  *a = sinf(v);
  *b = cosf(v);
#endif
  *a *= s;
  *b *= s;
}
/// One of box_muller's two values, `second` choosing b: the same operations on
/// the same words, so bit for bit the value box_muller gives (a lazy leaf's
/// element alone needs one sine or cosine, not both).
UFUNC_HD inline float box_muller_one(std::uint32_t x, std::uint32_t y, bool second) {
  const float u = to_uniform(x);
  const float v = y * (2.3283064e-10f * 6.2831855f) + ((2.3283064e-10f * 6.2831855f) / 2);
  const float s = sqrtf(-2.0f * logf(u));
#if defined(__CUDA_ARCH__)
  float a, b;
  __sincosf(v, &a, &b);
  float r = second ? b : a;
#else
  float r = second ? cosf(v) : sinf(v);
#endif
  r *= s;
  return r;
}
/// Philox4x32-10's ten rounds (philox4x32_10).
UFUNC_HD inline words philox_rounds(words c, std::uint32_t k0, std::uint32_t k1) {
  for (int r = 0; r < 9; ++r) {
    c = round(c, k0, k1);
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return round(c, k0, k1);
}
/// Philox block `b` of subsequence 0 (draws 4b .. 4b + 3).
UFUNC_HD inline words philox_block(std::uint64_t seed, std::uint64_t b) {
  return philox_rounds({static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(b >> 32), 0, 0},
                       static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32));
}
/// The Philox block holding draw `index` of subsequence 0 (four draws a block).
UFUNC_HD inline words block_at(std::uint64_t seed, std::uint64_t index) { return philox_block(seed, index / 4); }
UFUNC_HD inline std::uint32_t lane(const words& o, unsigned l) { return l == 0 ? o.x : l == 1 ? o.y : l == 2 ? o.z : o.w; }
/// cuRAND's _curand_uniform_double_hq: 53 random bits from two draws, in (0, 1].
UFUNC_HD inline double to_uniform_double(std::uint32_t x, std::uint32_t y) {
  const std::uint64_t z = static_cast<std::uint64_t>(x) ^ (static_cast<std::uint64_t>(y) << 21);
  return static_cast<double>(z) * 1.1102230246251565e-16 + (1.1102230246251565e-16 / 2.0);
}
/// cuRAND's _curand_box_muller_double: two normals from four draws (device code
/// sincospi, host code sin and cos of v * pi, as cuRAND).
UFUNC_HD inline void box_muller_double(const words& o, double* a, double* b) {
  const std::uint64_t zx = static_cast<std::uint64_t>(o.x) ^ (static_cast<std::uint64_t>(o.y) << 21);
  const std::uint64_t zy = static_cast<std::uint64_t>(o.z) ^ (static_cast<std::uint64_t>(o.w) << 21);
  const double u = static_cast<double>(zx) * 1.1102230246251565e-16 + (1.1102230246251565e-16 / 2.0);
  const double v = static_cast<double>(zy) * (1.1102230246251565e-16 * 2.0) + 1.1102230246251565e-16;
  const double s = sqrt(-2.0 * log(u));
#if defined(__CUDA_ARCH__)
  sincospi(v, a, b);
#else
  *a = sin(v * 3.1415926535897932);
  *b = cos(v * 3.1415926535897932);
#endif
  *a *= s;
  *b *= s;
}
/// One of box_muller_double's two values (`second`: b), bit for bit.
UFUNC_HD inline double box_muller_double_one(const words& o, bool second) {
  const std::uint64_t zx = static_cast<std::uint64_t>(o.x) ^ (static_cast<std::uint64_t>(o.y) << 21);
  const std::uint64_t zy = static_cast<std::uint64_t>(o.z) ^ (static_cast<std::uint64_t>(o.w) << 21);
  const double u = static_cast<double>(zx) * 1.1102230246251565e-16 + (1.1102230246251565e-16 / 2.0);
  const double v = static_cast<double>(zy) * (1.1102230246251565e-16 * 2.0) + 1.1102230246251565e-16;
  const double s = sqrt(-2.0 * log(u));
#if defined(__CUDA_ARCH__)
  double a, b;
  sincospi(v, &a, &b);
  double r = second ? b : a;
#else
  double r = second ? cos(v * 3.1415926535897932) : sin(v * 3.1415926535897932);
#endif
  r *= s;
  return r;
}
/// The high 64 bits of a 128-bit product.
UFUNC_HD inline std::uint64_t mulhi64(std::uint64_t a, std::uint64_t b) {
#if defined(__CUDA_ARCH__)
  return __umul64hi(a, b);
#else
  return static_cast<std::uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64);
#endif
}
template <class T>
inline constexpr bool is_draw_type = std::is_same_v<T, float> || std::is_same_v<T, double>;
/// integer_at's value (random.hpp).
template <class T>
UFUNC_HD T integer_value(std::uint64_t seed, std::uint64_t index, T low, T high) {
  const std::uint64_t m = static_cast<std::uint64_t>(high) - static_cast<std::uint64_t>(low);
  const words o = philox_block(seed, index);
  const std::uint64_t lo = o.x | (static_cast<std::uint64_t>(o.y) << 32);
  const std::uint64_t hi = o.z | (static_cast<std::uint64_t>(o.w) << 32);
  // floor((hi 2^64 + lo) m / 2^128) = hi64(hi m) + carry of lo64(hi m) + hi64(lo m)
  const std::uint64_t h1 = mulhi64(hi, m), l1 = hi * m, h0 = mulhi64(lo, m);
  const std::uint64_t r = h1 + (l1 + h0 < l1 ? 1 : 0);
  return static_cast<T>(static_cast<std::uint64_t>(low) + r);
}
/// The float or double a draw of element type T is computed in (16-bit types:
/// float, then rounded once).
template <class T>
using draw_t = std::conditional_t<std::is_same_v<T, double>, double, float>;
// A draw kind writes the values of one Philox block at a time (per_block of
// them: the block's 4 draws make 4 floats, 2 doubles or 1 integer), as
// cuRAND's generators do: one block per element would compute 4 times the rounds.
template <class T>
struct uniform_draw {
  static constexpr int per_block = std::is_same_v<T, double> ? 2 : 4;
  std::uint64_t seed;
  draw_t<T> low, scale;
  UFUNC_HD void block(std::uint64_t b, T* v) const {
    const words o = philox_block(seed, b);
    if constexpr (std::is_same_v<T, double>) {
      v[0] = low + scale * to_uniform_double(o.x, o.y);
      v[1] = low + scale * to_uniform_double(o.z, o.w);
    } else {
      const std::uint32_t w[4] = {o.x, o.y, o.z, o.w};
#if defined(__CUDACC__)
#  pragma unroll
#endif
      for (int l = 0; l < 4; ++l) v[l] = ufunc::detail::convert<T>(low + scale * to_uniform(w[l]));
    }
  }
  /// Element i alone (the value block() gives it, bit for bit).
  UFUNC_HD T value(std::uint64_t i) const {
    if constexpr (std::is_same_v<T, double>) {
      const words o = philox_block(seed, i / 2);
      return low + scale * ((i & 1) ? to_uniform_double(o.z, o.w) : to_uniform_double(o.x, o.y));
    } else {
      const words o = block_at(seed, i);
      return ufunc::detail::convert<T>(low + scale * to_uniform(lane(o, static_cast<unsigned>(i & 3))));
    }
  }
};
template <class T>
struct normal_draw {
  static constexpr int per_block = std::is_same_v<T, double> ? 2 : 4;
  std::uint64_t seed;
  draw_t<T> mean, stddev;
  UFUNC_HD void block(std::uint64_t b, T* v) const {
    const words o = philox_block(seed, b);
    if constexpr (std::is_same_v<T, double>) {
      double z0, z1;
      box_muller_double(o, &z0, &z1);
      v[0] = mean + stddev * z0;
      v[1] = mean + stddev * z1;
    } else {
      float z[4];
      box_muller(o.x, o.y, &z[0], &z[1]);
      box_muller(o.z, o.w, &z[2], &z[3]);
#if defined(__CUDACC__)
#  pragma unroll
#endif
      for (int l = 0; l < 4; ++l) v[l] = ufunc::detail::convert<T>(mean + stddev * z[l]);
    }
  }
  /// Element i alone: one Box-Muller value (the value block() gives it).
  UFUNC_HD T value(std::uint64_t i) const {
    if constexpr (std::is_same_v<T, double>) {
      return mean + stddev * box_muller_double_one(philox_block(seed, i / 2), (i & 1) != 0);
    } else {
      const words o = block_at(seed, i);
      const bool second_pair = (i & 2) != 0;
      const float z = box_muller_one(second_pair ? o.z : o.x, second_pair ? o.w : o.y, (i & 1) != 0);
      return ufunc::detail::convert<T>(mean + stddev * z);
    }
  }
};
template <class T>
struct integer_draw {
  static constexpr int per_block = 1;
  std::uint64_t seed;
  T low, high;
  UFUNC_HD void block(std::uint64_t b, T* v) const { v[0] = integer_value<T>(seed, b, low, high); }
  UFUNC_HD T value(std::uint64_t i) const { return integer_value<T>(seed, i, low, high); }
};

/// A draw kind as a generator of computed operands (detail/operand.hpp's
/// in_computed, the lazy leaves): element i is the fill's draw i. values<V>
/// makes V consecutive elements from whole Philox blocks where they start a
/// block (one block per four floats, as the fill: V / per_block blocks, or one
/// block and a choice of its values when V is smaller), else element by element.
template <class T, class Draw>
struct draw_gen {
  using value_type = T;
  Draw draw;
  /// Elements a Philox block makes (values_from_block's alignment).
  static constexpr int block_width = Draw::per_block;
  UFUNC_HD T value(std::uint64_t i) const { return draw.value(i); }
  /// Elements i .. i + V - 1 from V / block_width whole blocks: i must start a
  /// block (i % block_width == 0; no check: the caller's layout guarantees it).
  template <int V>
  UFUNC_HD void values_from_block(std::uint64_t i, T* out) const {
    static_assert(V % block_width == 0, "whole blocks only");
#if defined(__CUDACC__)
#  pragma unroll
#endif
    for (int b = 0; b < V / block_width; ++b)
      draw.block(i / block_width + static_cast<std::uint64_t>(b), out + b * block_width);
  }
  template <int V>
  UFUNC_HD void values(std::uint64_t i, T* out) const {
    constexpr int K = Draw::per_block;
    if constexpr (V % K == 0) {
      if (i % K == 0) {
        values_from_block<V>(i, out);
        return;
      }
    } else if constexpr (K % V == 0) {
      if (i % V == 0) {
        T v[K];
        draw.block(i / K, v);
        const unsigned first = static_cast<unsigned>(i % K);
#if defined(__CUDACC__)
#  pragma unroll
#endif
        for (int j = 0; j < V; ++j) out[j] = pick<K>(v, first + static_cast<unsigned>(j));
        return;
      }
    }
#if defined(__CUDACC__)
#  pragma unroll
#endif
    for (int j = 0; j < V; ++j) out[j] = draw.value(i + static_cast<std::uint64_t>(j));
  }

 private:
  /// v[l] by selects (a run-time index into a register array would go to local memory).
  template <int K>
  static UFUNC_HD T pick(const T* v, unsigned l) {
    T r = v[0];
#if defined(__CUDACC__)
#  pragma unroll
#endif
    for (int k = 1; k < K; ++k) r = l == static_cast<unsigned>(k) ? v[k] : r;
    return r;
  }
};
/// One Philox block's values, aligned so that a full block is one store (16
/// bytes for float and double: four 4-byte stores a thread halved the fill's
/// write rate on an H200).
template <class T, int K>
struct alignas(sizeof(T) * K <= 16 && (sizeof(T) * K & (sizeof(T) * K - 1)) == 0 ? sizeof(T) * K : alignof(T))
    draw_pack {
  T v[K];
};
/// out[k] = draw first + k for k < n: call j makes the values of the j-th block
/// from the one holding draw `first`, and writes those in range.
template <class T, class Draw>
struct fill_fn {
  T* out;
  std::uint64_t first, n;
  Draw draw;
  UFUNC_HD void operator()(std::size_t j) const {
    constexpr int K = Draw::per_block;
    const std::uint64_t g = first / K + j;
    draw_pack<T, K> p;
    draw.block(g, p.v);
    const std::uint64_t e0 = g * K;
    if (e0 >= first && e0 - first + K <= n) {  // the whole block is in range
      T* dst = out + (e0 - first);
#if defined(__CUDA_ARCH__)
      if (reinterpret_cast<std::uintptr_t>(dst) % alignof(draw_pack<T, K>) == 0) {
        *reinterpret_cast<draw_pack<T, K>*>(dst) = p;
        return;
      }
#else
      std::memcpy(static_cast<void*>(dst), p.v, sizeof(p.v));
      return;
#endif
    }
#if defined(__CUDACC__)
#  pragma unroll
#endif
    for (int l = 0; l < K; ++l) {
      const std::uint64_t e = e0 + static_cast<std::uint64_t>(l);
      if (e >= first && e - first < n) out[e - first] = p.v[l];
    }
  }
};
/// The fill's common case, lean: out (aligned to a draw_pack) gets whole blocks
/// g0, g0 + 1, ... with no range or alignment tests. The fill is close to
/// compute-bound on the GPU (Philox's multiplies): fill_fn's tests held an H200
/// at 0.83 of a copy's rate, this body at 0.94 (bench/NOTES.md, session 17).
template <class T, class Draw>
struct fill_blocks_fn {
  draw_pack<T, Draw::per_block>* out;
  std::uint64_t g0;
  Draw draw;
  UFUNC_HD void operator()(std::size_t j) const {
    draw_pack<T, Draw::per_block> p;
    draw.block(g0 + j, p.v);
#if defined(__CUDA_ARCH__)
    out[j] = p;
#else
    std::memcpy(static_cast<void*>(out + j), &p, sizeof(p));
#endif
  }
};
template <class T>
void check_float(const char* name) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double> || ufunc::detail::is_half_v<T>,
                "ufunc::random: uniform and normal draw float, double, __half or __nv_bfloat16");
  (void)name;
}
template <class T>
void check_integer(T low, T high, const char* name) {
  static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool> && sizeof(T) <= 8,
                "ufunc::random::integers: an integer type of at most 64 bits (not bool)");
  if (!(low < high))
    throw value_error(std::string(name) + ": low must be less than high, not [" + std::to_string(low) + ", " +
                      std::to_string(high) + ")");
}
template <class T>
void check_stddev(T stddev, const char* name) {
  const double s = static_cast<double>(static_cast<draw_t<T>>(stddev));
  if (!(s >= 0)) throw value_error(std::string(name) + ": stddev must be >= 0, not " + std::to_string(s));
}
/// Fills n elements at `out` with draws first, first + 1, ... on Target.
template <class Target, class T, class Draw>
void fill_range(T* out, std::uint64_t first, std::uint64_t n, const Draw& d, stream_ref st) {
  if (n == 0) return;
  constexpr std::uint64_t K = Draw::per_block;
  using P = draw_pack<T, Draw::per_block>;
  if (first % K == 0 && reinterpret_cast<std::uintptr_t>(out) % alignof(P) == 0 && n >= K) {
    // Whole blocks with the lean body, then the last n % K draws (one block) with fill_fn.
    const std::uint64_t whole = n / K;
    ufunc::detail::parallel_for_impl<Target>(shape(static_cast<index_t>(whole)),
                                             fill_blocks_fn<T, Draw>{reinterpret_cast<P*>(out), first / K, d}, st);
    if (n % K == 0) return;
    out += whole * K;
    first += whole * K;
    n -= whole * K;
  }
  const std::uint64_t blocks = (first + n - 1) / K - first / K + 1;
  ufunc::detail::parallel_for_impl<Target>(shape(static_cast<index_t>(blocks)), fill_fn<T, Draw>{out, first, n, d}, st);
}
template <class T, class Tg, class Draw>
void fill_view(array_view<T, Tg> v, std::uint64_t first, const Draw& d, stream_ref st, const char* name) {
  if (!v.is_contiguous())
    throw shape_error(std::string(name) + ": the output must be a contiguous (row-major) view, not one of shape " +
                      v.shape().str() + " with other strides");
  fill_range<Tg>(v.data(), first, static_cast<std::uint64_t>(v.size()), d, st);
}
template <class T, class Target, class Draw>
array<T, Target> make(const shape& s, const Draw& d, stream_ref st) {
  array<T, Target> a(s, st);
  fill_range<Target>(a.data(), 0, static_cast<std::uint64_t>(a.size()), d, st);
  return a;
}
}  // namespace detail
}  // namespace ufunc::random
