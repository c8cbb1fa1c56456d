// ufunc::random: counter-based random numbers, cuRAND's Philox4_32_10 stream on
// every backend. A draw is a pure function of (seed, subsequence, offset), so
// arrays are filled in parallel in any order and thread count with the same
// numbers, and a user's function can draw from (seed, element index) itself.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "array.hpp"
#include "config.hpp"
#include "error.hpp"
#include "parallel_for.hpp"
#include "shape.hpp"
#include "stream.hpp"

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
}  // namespace detail

/// Philox4x32-10 (Salmon et al., 2011; cuRAND's curand_Philox4x32_10): 128
/// random bits of the 128-bit counter `c` under the 64-bit key (k0, k1).
UFUNC_HD inline words philox4x32_10(words c, std::uint32_t k0, std::uint32_t k1) {
  for (int r = 0; r < 9; ++r) {
    c = detail::round(c, k0, k1);
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return detail::round(c, k0, k1);
}

namespace detail {
/// The Philox block holding draw `index` of subsequence 0 (four draws a block).
UFUNC_HD inline words block_at(std::uint64_t seed, std::uint64_t index) {
  const std::uint64_t block = index / 4;
  return philox4x32_10({static_cast<std::uint32_t>(block), static_cast<std::uint32_t>(block >> 32), 0, 0},
                       static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32));
}
}  // namespace detail

/// cuRAND's Philox4_32_10 generator state: `philox g(seed, subsequence, offset)`
/// is `curand_init(seed, subsequence, offset, &s)`, and `g()`, `g.uniform()`,
/// `g.normal()` are `curand(&s)`, `curand_uniform(&s)`, `curand_normal(&s)`
/// (the same numbers on the host, bit for bit; normal() in host code uses sinf
/// and cosf where cuRAND's device code uses __sincosf, as cuRAND's host path
/// does). Each subsequence is 2^66 draws long. Usable in device and host code.
class philox {
 public:
  UFUNC_HD explicit philox(std::uint64_t seed, std::uint64_t subsequence = 0, std::uint64_t offset = 0)
      : ctr_{0, 0, static_cast<std::uint32_t>(subsequence), static_cast<std::uint32_t>(subsequence >> 32)},
        k0_(static_cast<std::uint32_t>(seed)),
        k1_(static_cast<std::uint32_t>(seed >> 32)),
        lane_(static_cast<unsigned>(offset & 3)) {
    add(offset / 4);
    out_ = philox4x32_10(ctr_, k0_, k1_);
  }
  /// 32 random bits (curand).
  UFUNC_HD std::uint32_t operator()() {
    const std::uint32_t r = lane_ == 0 ? out_.x : lane_ == 1 ? out_.y : lane_ == 2 ? out_.z : out_.w;
    if (++lane_ == 4) {
      add(1);
      out_ = philox4x32_10(ctr_, k0_, k1_);
      lane_ = 0;
    }
    return r;
  }
  /// Uniform in (0, 1] (curand_uniform).
  UFUNC_HD float uniform() { return detail::to_uniform((*this)()); }
  /// Standard normal (curand_normal: Box-Muller on two draws, the second value
  /// kept for the next call).
  UFUNC_HD float normal() {
    if (has_extra_) {
      has_extra_ = false;
      return extra_;
    }
    const std::uint32_t x = (*this)(), y = (*this)();
    float a, b;
    detail::box_muller(x, y, &a, &b);
    extra_ = b;
    has_extra_ = true;
    return a;
  }

 private:
  UFUNC_HD void add(std::uint64_t n) {  // the counter's low 64 bits += n, carried into the high ones
    const std::uint32_t lo = static_cast<std::uint32_t>(n);
    std::uint32_t hi = static_cast<std::uint32_t>(n >> 32);
    ctr_.x += lo;
    if (ctr_.x < lo) ++hi;
    ctr_.y += hi;
    if (hi <= ctr_.y) return;
    if (++ctr_.z) return;
    ++ctr_.w;
  }
  words ctr_;
  std::uint32_t k0_, k1_;
  words out_{};
  unsigned lane_;
  bool has_extra_ = false;
  float extra_ = 0.f;
};

/// Draw `index` of the stream `seed` (subsequence 0): the index-th curand_uniform
/// after curand_init(seed, 0, 0). One Philox block, in device or host code: a
/// function can draw for its element itself (`uniform_at(seed, i)`).
UFUNC_HD inline float uniform_at(std::uint64_t seed, std::uint64_t index) {
  const words o = detail::block_at(seed, index);
  const unsigned lane = static_cast<unsigned>(index & 3);
  return detail::to_uniform(lane == 0 ? o.x : lane == 1 ? o.y : lane == 2 ? o.z : o.w);
}
/// The index-th curand_normal after curand_init(seed, 0, 0): normals come in
/// pairs from draws 2p and 2p + 1 (Box-Muller), the even index the first.
UFUNC_HD inline float normal_at(std::uint64_t seed, std::uint64_t index) {
  const words o = detail::block_at(seed, index);  // draws 2p, 2p + 1 share a block
  const bool second_pair = (index & 2) != 0;
  float a, b;
  detail::box_muller(second_pair ? o.z : o.x, second_pair ? o.w : o.y, &a, &b);
  return (index & 1) ? b : a;
}

namespace detail {
template <class T>
struct fill_uniform {
  T* out;
  std::uint64_t seed;
  T low, scale;
  UFUNC_HD void operator()(std::size_t i) const { out[i] = low + scale * static_cast<T>(uniform_at(seed, i)); }
};
template <class T>
struct fill_normal {
  T* out;
  std::uint64_t seed;
  T mean, stddev;
  UFUNC_HD void operator()(std::size_t i) const { out[i] = mean + stddev * static_cast<T>(normal_at(seed, i)); }
};
template <class T>
void check_float(const char* name) {
  static_assert(std::is_same_v<T, float>,
                "ufunc::random: float draws only so far (cuRAND's curand_uniform/curand_normal stream)");
  (void)name;
}
}  // namespace detail

/// A new array of shape `s` on Target whose element i (row-major) is
/// `low + (high - low) * uniform_at(seed, i)`: with the defaults, cuRAND's
/// curand_uniform stream after curand_init(seed, 0, 0), in (0, 1]. The same
/// numbers on every backend and thread count. Enqueued on `st` (CUDA target:
/// asynchronous). float only so far.
template <class T = float, class Target = target::device>
array<T, Target> uniform(const shape& s, std::uint64_t seed, T low = T(0), T high = T(1), stream_ref st = {}) {
  detail::check_float<T>("ufunc::random::uniform");
  array<T, Target> a(s, st);
  if (a.size() > 0)
    ufunc::parallel_for<Target>(static_cast<std::size_t>(a.size()),
                                detail::fill_uniform<T>{a.data(), seed, low, static_cast<T>(high - low)}, st);
  return a;
}

/// A new array of shape `s` on Target whose element i is
/// `mean + stddev * normal_at(seed, i)`: with the defaults, cuRAND's
/// curand_normal stream after curand_init(seed, 0, 0) (device code; host code
/// within the difference of sinf/cosf and __sincosf). Enqueued on `st`. float only so far.
template <class T = float, class Target = target::device>
array<T, Target> normal(const shape& s, std::uint64_t seed, T mean = T(0), T stddev = T(1), stream_ref st = {}) {
  detail::check_float<T>("ufunc::random::normal");
  if (!(stddev >= T(0))) throw value_error("ufunc::random::normal: stddev must be >= 0, not " + std::to_string(stddev));
  array<T, Target> a(s, st);
  if (a.size() > 0)
    ufunc::parallel_for<Target>(static_cast<std::size_t>(a.size()), detail::fill_normal<T>{a.data(), seed, mean, stddev},
                                st);
  return a;
}

}  // namespace ufunc::random
