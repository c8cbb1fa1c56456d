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
#include "expression.hpp"
#include "parallel_for.hpp"
#include "shape.hpp"
#include "sharded.hpp"
#include "sharded_array.hpp"
#include "detail/random.hpp"  // Philox, the conversions and draw kinds (detail::)
#include "stream.hpp"

namespace ufunc::random {

/// Philox4x32-10 (Salmon et al., 2011; cuRAND's curand_Philox4x32_10): 128
/// random bits of the 128-bit counter `c` under the 64-bit key (k0, k1).
UFUNC_HD inline words philox4x32_10(words c, std::uint32_t k0, std::uint32_t k1) {
  return detail::philox_rounds(c, k0, k1);
}

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

/// Draw `index` of the stream `seed` (subsequence 0), in (0, 1]. float: the
/// index-th curand_uniform after curand_init(seed, 0, 0) (one 32-bit draw).
/// double: the index-th value of curand_uniform2_double's stream (53 bits from
/// draws 2 index and 2 index + 1, cuRAND's _curand_uniform_double_hq). One
/// Philox block, in device or host code: a function can draw for its element
/// itself (`uniform_at(seed, i)`).
template <class T = float>
UFUNC_HD T uniform_at(std::uint64_t seed, std::uint64_t index) {
  static_assert(detail::is_draw_type<T>, "ufunc::random::uniform_at: float or double");
  if constexpr (std::is_same_v<T, float>) {
    return detail::to_uniform(detail::lane(detail::block_at(seed, index), static_cast<unsigned>(index & 3)));
  } else {
    const words o = detail::philox_block(seed, index / 2);
    return (index & 1) ? detail::to_uniform_double(o.z, o.w) : detail::to_uniform_double(o.x, o.y);
  }
}
/// The index-th standard normal of the stream `seed`. float: curand_normal after
/// curand_init(seed, 0, 0) (Box-Muller on draws 2p and 2p + 1, the even index
/// the first). double: curand_normal_double (Box-Muller on the four draws of
/// block p = index / 2, the even index the first).
template <class T = float>
UFUNC_HD T normal_at(std::uint64_t seed, std::uint64_t index) {
  static_assert(detail::is_draw_type<T>, "ufunc::random::normal_at: float or double");
  if constexpr (std::is_same_v<T, float>) {
    const words o = detail::block_at(seed, index);  // draws 2p, 2p + 1 share a block
    const bool second_pair = (index & 2) != 0;
    float a, b;
    detail::box_muller(second_pair ? o.z : o.x, second_pair ? o.w : o.y, &a, &b);
    return (index & 1) ? b : a;
  } else {
    double a, b;
    detail::box_muller_double(detail::philox_block(seed, index / 2), &a, &b);
    return (index & 1) ? b : a;
  }
}
/// The index-th integer of the stream `seed` in [low, high) (high > low):
/// low + floor(m x / 2^128), m = high - low, x the 128 bits of Philox block
/// `index` (draw 4 index the lowest word). Each value's probability is within
/// a factor 1 +- 2^-64 of 1 / m.
template <class T>
UFUNC_HD T integer_at(std::uint64_t seed, std::uint64_t index, T low, T high) {
  static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool> && sizeof(T) <= 8,
                "ufunc::random::integer_at: an integer type of at most 64 bits");
  return detail::integer_value<T>(seed, index, low, high);
}

namespace detail {
/// Shard i's elements get draws first + (their global row-major index), so a
/// sharded array holds what one in-memory call of its shape does. On the
/// library's per-device streams; waits for them.
template <class T, class Target, class Draw>
void fill_shards(sharded_array<T, Target>& a, std::uint64_t first, const Draw& d) {
  const auto& s = a.shape();
  const index_t row = s[0] > 0 ? s.count() / s[0] : 0;
  const auto off = a.row_offsets();
  ufunc::detail::for_each_shard<Target>(a.devices().ids(), [&](int i, stream_ref st) {
    auto& sh = a.shard(i);
    const std::uint64_t f = first + static_cast<std::uint64_t>(off[static_cast<std::size_t>(i)] * row);
    fill_range<Target>(sh.data(), f, static_cast<std::uint64_t>(sh.size()), d, st);
    return 0;
  });
}
template <class T, class Target, class Draw>
sharded_array<T, Target> make_sharded(const shape& s, const device_set& set, const Draw& d) {
  auto a = ufunc::empty<T, Target>(s, set);
  fill_shards(a, 0, d);
  return a;
}
}  // namespace detail

/// A new array of shape `s` on Target whose element i (row-major) is
/// `low + (high - low) * uniform_at(seed, i)`: with the defaults, cuRAND's
/// curand_uniform stream after curand_init(seed, 0, 0), in (0, 1] (double:
/// curand_uniform2_double's 53-bit values); scaled, in [low, high] (the sum
/// rounds to low for the smallest draws). The same numbers on every backend
/// and thread count. T: float, double, or __half / __nv_bfloat16 (the float
/// value rounded once, so 0 and 1 can occur). Enqueued on `st` (CUDA target:
/// asynchronous).
template <class T = float, class Target = target::device>
array<T, Target> uniform(const shape& s, std::uint64_t seed, T low = T(0), T high = T(1), stream_ref st = {}) {
  detail::check_float<T>("ufunc::random::uniform");
  using W = detail::draw_t<T>;
  return detail::make<T, Target>(s, detail::uniform_draw<T>{seed, W(low), W(W(high) - W(low))}, st);
}

/// A new array of shape `s` on Target whose element i is
/// `mean + stddev * normal_at(seed, i)`: with the defaults, cuRAND's
/// curand_normal stream after curand_init(seed, 0, 0) (double:
/// curand_normal_double's; device code, and host code within the difference of
/// the host's and the device's sine and cosine). Types as `uniform`.
/// `stddev < 0` is a value_error. Enqueued on `st`.
template <class T = float, class Target = target::device>
array<T, Target> normal(const shape& s, std::uint64_t seed, T mean = T(0), T stddev = T(1), stream_ref st = {}) {
  detail::check_float<T>("ufunc::random::normal");
  detail::check_stddev(stddev, "ufunc::random::normal");
  using W = detail::draw_t<T>;
  return detail::make<T, Target>(s, detail::normal_draw<T>{seed, W(mean), W(stddev)}, st);
}

/// A new array of shape `s` on Target of integers in [low, high) (NumPy's
/// Generator.integers): element i is `integer_at(seed, i, low, high)`. Any
/// integer type of at most 64 bits; `low >= high` is a value_error. Enqueued on `st`.
template <class T = std::int64_t, class Target = target::device>
array<T, Target> integers(const shape& s, std::uint64_t seed, T low, T high, stream_ref st = {}) {
  detail::check_integer(low, high, "ufunc::random::integers");
  return detail::make<T, Target>(s, detail::integer_draw<T>{seed, low, high}, st);
}

/// The draws `first`, `first + 1`, ... of the same streams into an existing
/// contiguous view (element k, row-major, gets draw first + k): a long stream
/// drawn chunk by chunk into one buffer gives the numbers one call would.
/// Enqueued on `st`; shape_error for a strided view.
template <class T, class Tg>
void fill_uniform(array_view<T, Tg> v, std::uint64_t seed, std::uint64_t first = 0, T low = T(0), T high = T(1),
                  stream_ref st = {}) {
  detail::check_float<T>("ufunc::random::fill_uniform");
  using W = detail::draw_t<T>;
  detail::fill_view(v, first, detail::uniform_draw<T>{seed, W(low), W(W(high) - W(low))}, st,
                    "ufunc::random::fill_uniform");
}
template <class T, class Tg>
void fill_normal(array_view<T, Tg> v, std::uint64_t seed, std::uint64_t first = 0, T mean = T(0), T stddev = T(1),
                 stream_ref st = {}) {
  detail::check_float<T>("ufunc::random::fill_normal");
  detail::check_stddev(stddev, "ufunc::random::fill_normal");
  using W = detail::draw_t<T>;
  detail::fill_view(v, first, detail::normal_draw<T>{seed, W(mean), W(stddev)}, st, "ufunc::random::fill_normal");
}
template <class T, class Tg>
void fill_integers(array_view<T, Tg> v, std::uint64_t seed, std::uint64_t first, T low, T high, stream_ref st = {}) {
  detail::check_integer(low, high, "ufunc::random::fill_integers");
  detail::fill_view(v, first, detail::integer_draw<T>{seed, low, high}, st, "ufunc::random::fill_integers");
}

/// Lazy leaves: `lazy_uniform<T>(s, seed[, low, high])`, `lazy_normal<T>(s,
/// seed[, mean, stddev])` and `lazy_integers<T>(s, seed, low, high)` are
/// expressions (expression.hpp) of shape `s` whose element i (row-major) is
/// element i of `uniform<T>(s, seed, ...)` (`normal`, `integers`) with the same
/// arguments, bit for bit on the target that evaluates them, computed where it
/// is used: in operators, `f.lazy(...)`, eager calls, `evaluate` and every
/// reduction, with no array of draws (`ufunc::sum(lazy_normal<float>(shape{n},
/// seed) * 10.0f)` reads and writes no memory of n elements). Broadcast as an
/// array of shape `s`: along a broadcast dim each draw repeats. `Target`: void
/// (the default) gives the leaf no target of its own: it runs on the target of
/// the arrays it meets, host or device, and alone (or with scalars only) on the
/// build's device, as any expression without arrays; a target pins it there
/// (an array of another target in the same expression is then a compile-time
/// error, as for arrays). The arguments are checked here, before anything runs:
/// `stddev < 0` and `low >= high` are value_errors, as for the arrays.
template <class T = float, class Target = void>
auto lazy_uniform(const shape& s, std::uint64_t seed, T low = T(0), T high = T(1)) {
  detail::check_float<T>("ufunc::random::lazy_uniform");
  using W = detail::draw_t<T>;
  using D = detail::uniform_draw<T>;
  return ufunc::detail::computed_expression<Target>(detail::draw_gen<T, D>{D{seed, W(low), W(W(high) - W(low))}}, s,
                                                    "lazy_uniform");
}
template <class T = float, class Target = void>
auto lazy_normal(const shape& s, std::uint64_t seed, T mean = T(0), T stddev = T(1)) {
  detail::check_float<T>("ufunc::random::lazy_normal");
  detail::check_stddev(stddev, "ufunc::random::lazy_normal");
  using W = detail::draw_t<T>;
  using D = detail::normal_draw<T>;
  return ufunc::detail::computed_expression<Target>(detail::draw_gen<T, D>{D{seed, W(mean), W(stddev)}}, s,
                                                    "lazy_normal");
}
template <class T = std::int64_t, class Target = void>
auto lazy_integers(const shape& s, std::uint64_t seed, T low, T high) {
  detail::check_integer(low, high, "ufunc::random::lazy_integers");
  using D = detail::integer_draw<T>;
  return ufunc::detail::computed_expression<Target>(detail::draw_gen<T, D>{D{seed, low, high}}, s, "lazy_integers");
}

/// Sharded arrays over `set` (sharded.hpp): each shard holds the draws at its
/// elements' global indices, the numbers of the same call without a set. Over
/// a set spanning processes, collective (every rank passes the same arguments).
template <class T = float, class Target = target::device>
sharded_array<T, Target> uniform(const shape& s, std::uint64_t seed, const device_set& set, T low = T(0),
                                 T high = T(1)) {
  detail::check_float<T>("ufunc::random::uniform");
  using W = detail::draw_t<T>;
  return detail::make_sharded<T, Target>(s, set, detail::uniform_draw<T>{seed, W(low), W(W(high) - W(low))});
}
template <class T = float, class Target = target::device>
sharded_array<T, Target> normal(const shape& s, std::uint64_t seed, const device_set& set, T mean = T(0),
                                T stddev = T(1)) {
  detail::check_float<T>("ufunc::random::normal");
  detail::check_stddev(stddev, "ufunc::random::normal");
  using W = detail::draw_t<T>;
  return detail::make_sharded<T, Target>(s, set, detail::normal_draw<T>{seed, W(mean), W(stddev)});
}
template <class T = std::int64_t, class Target = target::device>
sharded_array<T, Target> integers(const shape& s, std::uint64_t seed, const device_set& set, T low, T high) {
  detail::check_integer(low, high, "ufunc::random::integers");
  return detail::make_sharded<T, Target>(s, set, detail::integer_draw<T>{seed, low, high});
}

/// fill_uniform, fill_normal and fill_integers of a sharded array: element k of
/// the whole array (row-major, global) gets draw first + k, whichever shard holds
/// it. On the library's per-device streams; returns when every shard is written.
template <class T, class Tg>
void fill_uniform(sharded_array<T, Tg>& a, std::uint64_t seed, std::uint64_t first = 0, T low = T(0), T high = T(1)) {
  detail::check_float<T>("ufunc::random::fill_uniform");
  using W = detail::draw_t<T>;
  detail::fill_shards(a, first, detail::uniform_draw<T>{seed, W(low), W(W(high) - W(low))});
}
template <class T, class Tg>
void fill_normal(sharded_array<T, Tg>& a, std::uint64_t seed, std::uint64_t first = 0, T mean = T(0),
                 T stddev = T(1)) {
  detail::check_float<T>("ufunc::random::fill_normal");
  detail::check_stddev(stddev, "ufunc::random::fill_normal");
  using W = detail::draw_t<T>;
  detail::fill_shards(a, first, detail::normal_draw<T>{seed, W(mean), W(stddev)});
}
template <class T, class Tg>
void fill_integers(sharded_array<T, Tg>& a, std::uint64_t seed, std::uint64_t first, T low, T high) {
  detail::check_integer(low, high, "ufunc::random::fill_integers");
  detail::fill_shards(a, first, detail::integer_draw<T>{seed, low, high});
}

}  // namespace ufunc::random
