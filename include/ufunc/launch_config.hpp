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

}  // namespace ufunc
