// Shared test helpers: fresh random data (a new seed every run, printed on
// failure through doctest's INFO), host references and tolerances.
#pragma once

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <ufunc/ufunc.hpp>

namespace test {

/// A seed drawn fresh for each test run; the value is reported in failures.
inline std::uint64_t fresh_seed() {
  static const std::uint64_t base = std::random_device{}() ^ (std::uint64_t(std::random_device{}()) << 32);
  static std::uint64_t counter = 0;
  return base + 0x9E3779B97F4A7C15ull * ++counter;
}

template <class T>
std::vector<T> random_vector(std::size_t n, std::uint64_t seed, double lo = -10.0, double hi = 10.0) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(n);
  if constexpr (std::is_floating_point_v<T>) {
    std::uniform_real_distribution<double> d(lo, hi);
    for (auto& x : v) x = static_cast<T>(d(rng));
  } else {
    std::uniform_int_distribution<long long> d(static_cast<long long>(lo), static_cast<long long>(hi));
    for (auto& x : v) x = static_cast<T>(d(rng));
  }
  return v;
}

/// Row-major strides of a shape, as a vector.
inline std::vector<ufunc::index_t> strides_of(const ufunc::shape& s) { return ufunc::contiguous_strides(s); }

/// Relative closeness for floating point: |a-b| <= rtol*max(|a|,|b|) + atol.
inline bool close(double a, double b, double rtol = 1e-6, double atol = 1e-6) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::fabs(a - b) <= rtol * std::fmax(std::fabs(a), std::fabs(b)) + atol;
}

}  // namespace test
