// ufunc::launch_config: an explicit CUDA launch shape, a trailing argument of
// parallel_for. A vocabulary header: types only, no operation.
#pragma once

#include <climits>
#include <cstdint>
#include <string>
#include <type_traits>

#include "config.hpp"
#include "error.hpp"

namespace ufunc {

/// An explicit launch configuration for `parallel_for`: `blocks` blocks of
/// `threads` threads (1 to 1024, and at most what the kernel's register use allows).
/// Any configuration covers the whole index space, since every thread walks it with
/// a grid-stride loop; it changes only how the work is spread. Without one,
/// `parallel_for` asks the CUDA occupancy API. The host backend checks it the same
/// way and then schedules its own chunks.
struct launch_config {
  index_t blocks = 0;
  index_t threads = 0;

  constexpr launch_config() noexcept = default;
  template <class B, class T, std::enable_if_t<std::is_integral_v<B> && std::is_integral_v<T>, int> = 0>
  constexpr launch_config(B blocks_, T threads_) noexcept : blocks(to_index(blocks_)), threads(to_index(threads_)) {}

 private:
  template <class I>
  static constexpr index_t to_index(I v) noexcept {  // saturates: still rejected, with a sensible message
    if constexpr (std::is_unsigned_v<I> && sizeof(I) >= sizeof(index_t))
      return v > static_cast<std::make_unsigned_t<index_t>>(INT64_MAX) ? INT64_MAX : static_cast<index_t>(v);
    else
      return static_cast<index_t>(v);
  }
};

namespace detail {

/// A launch configuration after validation (blocks > 0, threads in 1..1024).
struct checked_launch {
  bool given = false;
  unsigned blocks = 0, threads = 0;
};

inline checked_launch check_launch_config(const launch_config& c) {
  if (c.threads < 1 || c.threads > 1024)
    throw value_error("parallel_for: launch_config threads per block must be 1 to 1024, got " +
                      std::to_string(c.threads));
  if (c.blocks < 1 || c.blocks > INT_MAX)
    throw value_error("parallel_for: launch_config blocks must be 1 to " + std::to_string(INT_MAX) + ", got " +
                      std::to_string(c.blocks));
  return {true, static_cast<unsigned>(c.blocks), static_cast<unsigned>(c.threads)};
}

}  // namespace detail

}  // namespace ufunc
