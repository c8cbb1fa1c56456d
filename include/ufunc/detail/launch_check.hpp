// The launch configuration after its checks (parallel_for's front end makes it,
// the backends take it).
#pragma once

#include <climits>
#include <string>

#include "../error.hpp"
#include "../launch_config.hpp"

namespace ufunc::detail {

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

}  // namespace ufunc::detail
