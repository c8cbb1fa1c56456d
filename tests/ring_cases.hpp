// Pairwise reductions with both operands sharded (issue 40): the x_i sharded
// along axis 0, the y_j (and b_j) sharded along the reduced axis, so that each
// device or rank reduces its x_i against one y block at a time (the blocks
// passed from shard to shard, sharded/ring.hpp). The cases every test of it
// runs: tests/test_sharded_ring.cpp (one process: host shards, GPUs),
// tests/mpi/test_mpi.cpp and tests/file_comm/test_file_comm.cpp (across ranks),
// each result against a double loop over the whole data, every check reported
// through check(ok, what). No doctest here: the rank tests do without it.
#pragma once

#include <ufunc/ufunc.hpp>

#include <cuda/std/array>
#include <cuda/std/limits>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

// A named namespace: nvcc's extended lambdas may not sit in a function of
// internal linkage (the functions below use none; functors instead).
namespace ring_cases {

using ufunc::index_t;
using host = ufunc::target::host;
using P3 = cuda::std::array<float, 3>;
using check_fn = std::function<void(bool, const std::string&)>;

/// |x - y|^2 in float.
struct dist2_3 {
  UFUNC_HD float operator()(const P3& x, const P3& y) const {
    const float dx = x[0] - y[0], dy = x[1] - y[1], dz = x[2] - y[2];
    return dx * dx + dy * dy + dz * dz;
  }
};
/// A Gaussian kernel term exp(-|x - y|^2 / 2) * b.
struct gauss_b {
  UFUNC_HD float operator()(const P3& x, const P3& y, float b) const { return expf(-0.5f * dist2_3{}(x, y)) * b; }
};
/// |x - y|^2 where b_j holds, else +inf (b_j of one byte: bool).
struct masked_d2 {
  UFUNC_HD float operator()(const P3& x, const P3& y, bool keep) const {
    return keep ? dist2_3{}(x, y) : cuda::std::numeric_limits<float>::infinity();
  }
};
/// (x - y)^2 of plain scalars.
struct sqdiff {
  UFUNC_HD float operator()(float x, float y) const { return (x - y) * (x - y); }
};
/// Associative, not commutative, no identity: the first (Left) or last element.
/// The host's engines keep the element order (test_pairwise.cpp), so over y
/// blocks keep-first must give the first y_j and keep-last the last: the blocks'
/// partials folded in global j order.
template <bool Left>
struct keep {
  UFUNC_HD float operator()(float a, float b) const { return Left ? a : b; }
};

inline std::vector<float> uniform(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(g);
  return v;
}
/// Multiples of 1/4 in [-5, 5]: differences, squares and sums of up to a few
/// thousand of them are exact in float, so extrema, arg* and these sums compare
/// exactly, and ties are frequent.
inline std::vector<float> grid(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_int_distribution<int> d(-20, 20);
  std::vector<float> v(n);
  for (auto& x : v) x = static_cast<float>(d(g)) / 4.0f;
  return v;
}
inline double d2(const std::vector<float>& x, index_t i, const std::vector<float>& y, index_t j) {
  double s = 0;
  for (int k = 0; k < 3; ++k) {
    const double e = double(x[static_cast<std::size_t>(3 * i + k)]) - double(y[static_cast<std::size_t>(3 * j + k)]);
    s += e * e;
  }
  return s;
}
/// NumPy's argmin/argmax of value(0 .. m-1): the first NaN, else the first extremum.
template <class F>
index_t ref_arg(index_t m, const F& value, bool max) {
  index_t best = 0;
  double bv = value(0);
  if (std::isnan(bv)) return 0;
  for (index_t j = 1; j < m; ++j) {
    const double v = value(j);
    if (std::isnan(v)) return j;
    if (max ? v > bv : v < bv) bv = v, best = j;
  }
  return best;
}
inline bool same_value(double got, double want) { return (std::isnan(got) && std::isnan(want)) || got == want; }
/// The non-empty shards of `n` rows over a set (blocks of y).
inline int blocks_of(const ufunc::device_set& d, index_t n) {
  int b = 0;
  for (index_t r : ufunc::detail::split_rows(n, d.ranks() > 1 ? d.ranks() : d.size())) b += r > 0;
  return b;
}

/// The float sums' bound (docs/multi_gpu.md): each block's pairwise sum
/// ((32 + log2 of its count) eps on the host, 256 + log2 on the GPU), one
/// rounding a fold of a block's partial and one a combined shard, and a few
/// roundings of each term (differences, squares, expf, the product), relative
/// to the sum of |term|.
template <class Tg>
double sum_tol(index_t count, int blocks, int shards) {
  const double lead = std::is_same_v<Tg, host> ? 32 : 256;
  return (lead + std::log2(double(count) + 1) + blocks + shards + 8) * 1.1920929e-7;
}

/// Every check of one size: n x_i over `d`, m y_j and b_j over `d`, data from
/// `seed` (the same on every rank). `exact_order`: also keep-first/keep-last
/// (the host's engines keep the element order; a GPU's do not).
template <class Tg>
void run(const ufunc::device_set& d, index_t n, index_t m, std::uint64_t seed, const check_fn& check) {
  const std::string at = " (n " + std::to_string(n) + ", m " + std::to_string(m) + ", over " + d.str() + ", " +
                         (std::is_same_v<Tg, host> ? "host" : "GPU") + " shards, seed " + std::to_string(seed) + ")";
  const int nb = blocks_of(d, m), shards = d.ranks() > 1 ? d.ranks() : d.size();
  const auto hx = uniform(static_cast<std::size_t>(3 * n), seed), hy = uniform(static_cast<std::size_t>(3 * m), seed + 1);
  const auto hb = uniform(static_cast<std::size_t>(m), seed + 2);
  auto gx = grid(static_cast<std::size_t>(3 * n), seed + 3), gy = grid(static_cast<std::size_t>(3 * m), seed + 4);
  // NaNs: an x_i whose every distance is NaN (its argmin is 0), and a y_j in a
  // later block whose distance is NaN for every x_i (the first NaN wins).
  if (n >= 4) gx[static_cast<std::size_t>(3 * (n / 2))] = std::nanf("");
  const index_t jn = m >= 3 ? m - 1 - m / 4 : -1;
  if (jn >= 0) gy[static_cast<std::size_t>(3 * jn + 1)] = std::nanf("");
  const auto X = ufunc::shard<Tg>(hx, ufunc::shape{n, 1, 3}, d);
  const auto Y = ufunc::shard<Tg>(hy, ufunc::shape{m, 3}, d);
  const auto B = ufunc::shard<Tg>(hb, ufunc::shape{m}, d);
  const auto GX = ufunc::shard<Tg>(gx, ufunc::shape{n, 1, 3}, d);
  const auto GY = ufunc::shard<Tg>(gy, ufunc::shape{m, 3}, d);
  const auto k = ufunc::map_reduce(gauss_b{}, ufunc::plus{});
  const auto dist2 = ufunc::vectorize<Tg>(dist2_3{});
  const auto gauss = ufunc::vectorize<Tg>(gauss_b{});
  auto term = [&](index_t i, index_t j) { return std::exp(-0.5 * d2(hx, i, hy, j)) * hb[static_cast<std::size_t>(j)]; };
  std::vector<double> ks(static_cast<std::size_t>(n), 0.0), ka(static_cast<std::size_t>(n), 0.0);
  double whole = 0, whole_abs = 0;
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < m; ++j) {
      ks[static_cast<std::size_t>(i)] += term(i, j);
      ka[static_cast<std::size_t>(i)] += std::fabs(term(i, j));
    }
  for (index_t i = 0; i < n; ++i) whole += ks[static_cast<std::size_t>(i)], whole_abs += ka[static_cast<std::size_t>(i)];
  auto sums_ok = [&](const std::vector<float>& got, double add, double scale) {
    bool ok = got.size() == static_cast<std::size_t>(n);
    const double tol = sum_tol<Tg>(m, nb, 1);
    for (index_t i = 0; ok && i < n; ++i) {
      const double want = (ks[static_cast<std::size_t>(i)] + add) * scale;
      ok = std::fabs(got[static_cast<std::size_t>(i)] - want) <= tol * (ka[static_cast<std::size_t>(i)] + std::fabs(add)) * scale + 1e-30;
    }
    return ok;
  };

  // Kernel sums over j: sharded like X. The memory a y operand takes beyond its
  // own shard, per shard: none on host shards in one process (a shard reads the
  // others' blocks where they are), one block on a GPU (a buffer) or on a host
  // rank (the received block), three across GPU ranks (a device buffer, the
  // received block and its own staged in host memory).
#if defined(UFUNC_TESTING)
  ufunc::detail::testing::ring_slot_peak() = 0;
#endif
  const auto a = k(ufunc::vec<3>(X), ufunc::vec<3>(Y), B, ufunc::axis(1));
#if defined(UFUNC_TESTING)
  {
    index_t most = 0;
    for (index_t r : ufunc::detail::split_rows(m, shards)) most = std::max(most, r);
    const std::size_t block = static_cast<std::size_t>(most * 3) * sizeof(float), peak = ufunc::detail::testing::ring_slot_peak();
    const std::size_t blocks = std::is_same_v<Tg, host> ? (d.spans_processes() ? 1 : 0) : (d.spans_processes() ? 3 : 1);
    check(peak <= blocks * block,
          "y memory per shard: " + std::to_string(peak) + " bytes, at most " + std::to_string(blocks) + " blocks of " +
              std::to_string(block) + at);
  }
#endif
  check(a.shape() == ufunc::shape({n}) && a.global_rows() == X.global_rows() && a.devices() == d,
        "kernel sum over j: shape and sharding " + a.sharding() + at);
  const auto ah = a.to_host();
  check(sums_ok(ah, 0, 1), "kernel sum over j within the bound" + at);
  // With an initial value (once per x_i) and keepdims; into a sharded out.
  const auto a5 = ufunc::map_reduce(gauss_b{}, ufunc::plus{}, 5.0f)(ufunc::vec<3>(X), ufunc::vec<3>(Y), B, ufunc::axis(1),
                                                                    ufunc::keepdims);
  check(a5.shape() == ufunc::shape({n, 1}) && sums_ok(a5.to_host(), 5, 1), "kernel sum + 5, keepdims" + at);
  auto o = ufunc::full<float, Tg>(ufunc::shape{n}, -9.f, d);
  (void)k(ufunc::vec<3>(X), ufunc::vec<3>(Y), B, ufunc::axis(1), ufunc::out(o));
  check(o.to_host() == ah, "kernel sum over j into a sharded out: the same bits" + at);
  // A mean of a lazy sharded expression (the division once, by m).
  if (m > 0) {
    const auto mn = ufunc::mean(gauss.lazy(ufunc::vec<3>(X), ufunc::vec<3>(Y), B), ufunc::axis(1));
    check(sums_ok(mn.to_host(), 0, 1.0 / double(m)), "mean over j of a lazy expression" + at);
  }
  // Over every axis: each x shard over the y blocks, then the shards combined.
  const float w = k(ufunc::vec<3>(X), ufunc::vec<3>(Y), B);
  check(std::fabs(w - whole) <= sum_tol<Tg>(n * m, nb, shards) * whole_abs + 1e-30,
        "whole kernel sum " + std::to_string(w) + " against " + std::to_string(whole) + at);
  const float w5 = ufunc::map_reduce(gauss_b{}, ufunc::plus{}, 5.0f)(ufunc::vec<3>(X), ufunc::vec<3>(Y), B);
  check(std::fabs(w5 - (whole + 5)) <= sum_tol<Tg>(n * m, nb, shards) * (whole_abs + 5) + 1e-30,
        "whole kernel sum + 5 (the initial value once) " + std::to_string(w5) + at);
  const auto wk = k(ufunc::vec<3>(X), ufunc::vec<3>(Y), B, ufunc::axes{0, 1}, ufunc::keepdims).to_host();
  check(wk.size() == 1 && std::fabs(wk[0] - whole) <= sum_tol<Tg>(n * m, nb, shards) * whole_abs + 1e-30,
        "kernel sum over axes {0,1}, keepdims" + at);

  // Exact maps (grid values): minimum, a whole maximum, argmin/argmax with ties and NaNs.
  if (m > 0) {
    const auto mins = ufunc::map_reduce(dist2_3{}, ufunc::minimum{})(ufunc::vec<3>(GX), ufunc::vec<3>(GY), ufunc::axis(1)).to_host();
    const auto amin = ufunc::argmin(dist2.lazy(ufunc::vec<3>(GX), ufunc::vec<3>(GY)), ufunc::axis(1));
    const auto amax = ufunc::argmax(dist2.lazy(ufunc::vec<3>(GX), ufunc::vec<3>(GY)), ufunc::axis(1));
    check(amin.global_rows() == X.global_rows(), "argmin sharded like X" + at);
    const auto amin_h = amin.to_host(), amax_h = amax.to_host();
    bool ok_min = mins.size() == static_cast<std::size_t>(n), ok_arg = amin_h.size() == mins.size() && amax_h.size() == mins.size();
    double gmax = -1;
    bool any_nan = false;
    for (index_t i = 0; i < n && (ok_min || ok_arg); ++i) {
      auto v = [&](index_t j) { return d2(gx, i, gy, j); };
      double want = v(0);
      for (index_t j = 0; j < m; ++j) {
        const double e = v(j);
        any_nan = any_nan || std::isnan(e);
        if (std::isnan(e) || std::isnan(want)) want = std::nan("");
        else want = std::min(want, e);
        if (!std::isnan(e)) gmax = std::max(gmax, e);
      }
      ok_min = ok_min && same_value(mins[static_cast<std::size_t>(i)], want);
      ok_arg = ok_arg && amin_h[static_cast<std::size_t>(i)] == ref_arg(m, v, false) &&
               amax_h[static_cast<std::size_t>(i)] == ref_arg(m, v, true);
    }
    check(ok_min, "minimum over j, exactly (NaN propagated)" + at);
    check(ok_arg, "argmin/argmax over j: NumPy's index (ties to the lowest j, the first NaN), global" + at);
    if (n > 0) {
      const float gm = ufunc::max(dist2.lazy(ufunc::vec<3>(GX), ufunc::vec<3>(GY)));
      check(any_nan ? std::isnan(gm) : double(gm) == gmax, "whole maximum" + at);
    }
    // b_j of bool (another element size travelling with the y_j): a masked minimum.
    std::unique_ptr<bool[]> mask(new bool[static_cast<std::size_t>(m)]);
    for (index_t j = 0; j < m; ++j) mask[static_cast<std::size_t>(j)] = j % 3 != 1;
    const auto K = ufunc::shard<Tg>(mask.get(), ufunc::shape{m}, d);
    const auto mm = ufunc::map_reduce(masked_d2{}, ufunc::minimum{})(ufunc::vec<3>(GX), ufunc::vec<3>(GY), K, ufunc::axis(1)).to_host();
    bool ok_mm = mm.size() == static_cast<std::size_t>(n);
    for (index_t i = 0; ok_mm && i < n; ++i) {
      double want = std::numeric_limits<double>::infinity();
      for (index_t j = 0; j < m; ++j) {
        if (!mask[static_cast<std::size_t>(j)]) continue;
        const double e = d2(gx, i, gy, j);
        want = std::isnan(e) || std::isnan(want) ? std::nan("") : std::min(want, e);
      }
      ok_mm = same_value(mm[static_cast<std::size_t>(i)], want);
    }
    check(ok_mm, "a minimum masked by bool b_j" + at);
    if constexpr (std::is_same_v<Tg, host>) {
      const auto first = ufunc::map_reduce(dist2_3{}, keep<true>{})(ufunc::vec<3>(GX), ufunc::vec<3>(GY), ufunc::axis(1)).to_host();
      const auto last = ufunc::map_reduce(dist2_3{}, keep<false>{})(ufunc::vec<3>(GX), ufunc::vec<3>(GY), ufunc::axis(1)).to_host();
      bool ok = first.size() == static_cast<std::size_t>(n) && last.size() == first.size();
      for (index_t i = 0; ok && i < n; ++i)
        ok = same_value(first[static_cast<std::size_t>(i)], d2(gx, i, gy, 0)) &&
             same_value(last[static_cast<std::size_t>(i)], d2(gx, i, gy, m - 1));
      check(ok, "keep-first/keep-last over j: the blocks folded in global j order" + at);
    }
  }

  // Plain scalars: x_i (n, 1) and y_j (m,), sums of exact squares (exact in any
  // order) and argmin with ties.
  {
    std::vector<float> sx(gx.size() / 3), sy(gy.size() / 3);
    for (std::size_t i = 0; i < sx.size(); ++i) sx[i] = std::isnan(gx[3 * i]) ? 0.5f : gx[3 * i];
    for (std::size_t j = 0; j < sy.size(); ++j) sy[j] = gy[3 * j];
    const auto XS = ufunc::shard<Tg>(sx, ufunc::shape{n, 1}, d);
    const auto YS = ufunc::shard<Tg>(sy, ufunc::shape{m}, d);
    const auto s = ufunc::map_reduce(sqdiff{}, ufunc::plus{})(XS, YS, ufunc::axis(1)).to_host();
    bool ok = s.size() == static_cast<std::size_t>(n);
    for (index_t i = 0; ok && i < n; ++i) {
      double want = 0;
      for (index_t j = 0; j < m; ++j) want += (double(sx[static_cast<std::size_t>(i)]) - sy[static_cast<std::size_t>(j)]) * (double(sx[static_cast<std::size_t>(i)]) - sy[static_cast<std::size_t>(j)]);
      ok = double(s[static_cast<std::size_t>(i)]) == want;
    }
    check(ok, "sums of exact squares of plain scalars, exactly" + at);
    if (m > 0) {
      const auto am = ufunc::argmin(ufunc::vectorize<Tg>(sqdiff{}).lazy(XS, YS), ufunc::axis(1)).to_host();
      ok = am.size() == static_cast<std::size_t>(n);
      for (index_t i = 0; ok && i < n; ++i) {
        auto v = [&](index_t j) {
          const double e = double(sx[static_cast<std::size_t>(i)]) - sy[static_cast<std::size_t>(j)];
          return e * e;
        };
        ok = am[static_cast<std::size_t>(i)] == ref_arg(m, v, false);
      }
      check(ok, "argmin over j of plain scalars, ties to the lowest j" + at);
    }
  }
}

/// What is refused, before any work, on every rank: a y operand over another
/// device set, a reduction that keeps the y axis, argmin/argmax without that
/// axis, elementwise calls, y and b sharded unlike each other, a plain operand
/// or an x operand moving along the y axis. `other` is a set unlike d.
template <class Tg>
void errors(const ufunc::device_set& d, const ufunc::device_set& other, const check_fn& check) {
  const index_t n = 5, m = 7;
  const auto X = ufunc::zeros<float, Tg>(ufunc::shape{n, 1, 3}, d);
  const auto Y = ufunc::zeros<float, Tg>(ufunc::shape{m, 3}, d);
  const auto B = ufunc::zeros<float, Tg>(ufunc::shape{m}, d);
  const auto Yo = ufunc::zeros<float, Tg>(ufunc::shape{m, 3}, other);
  const auto Bp = ufunc::zeros<float, Tg>(ufunc::shape{m});
  const auto k = ufunc::map_reduce(gauss_b{}, ufunc::plus{});
  const auto dist2 = ufunc::vectorize<Tg>(dist2_3{});
  auto shape_error_with = [&](const std::string& part, auto&& call) {
    try {
      call();
    } catch (const ufunc::shape_error& e) {
      return std::string(e.what()).find(part) != std::string::npos;
    }
    return false;
  };
  check(shape_error_with("different device sets", [&] { (void)k(ufunc::vec<3>(X), ufunc::vec<3>(Yo), B, ufunc::axis(1)); }),
        "y over another device set: shape_error");
  check(shape_error_with("which this reduction keeps", [&] { (void)k(ufunc::vec<3>(X), ufunc::vec<3>(Y), B, ufunc::axis(0)); }),
        "a reduction keeping the y axis: shape_error");
  check(shape_error_with("give ufunc::axis(1)", [&] { (void)ufunc::argmin(dist2.lazy(ufunc::vec<3>(X), ufunc::vec<3>(Y))); }),
        "argmin over every axis with y sharded: shape_error");
  check(shape_error_with("only a reduction over that axis", [&] { (void)dist2(ufunc::vec<3>(X), ufunc::vec<3>(Y)); }),
        "an elementwise call with y sharded: shape_error");
  check(shape_error_with("only a reduction over that axis",
                         [&] { (void)ufunc::evaluate(dist2.lazy(ufunc::vec<3>(X), ufunc::vec<3>(Y))); }),
        "evaluating a lazy expression with y sharded: shape_error");
  check(shape_error_with("moves along", [&] { (void)k(ufunc::vec<3>(X), ufunc::vec<3>(Y), Bp, ufunc::axis(1)); }),
        "a plain b_j with y sharded: shape_error");
  {
    const auto XM = ufunc::zeros<float, Tg>(ufunc::shape{n, m}, d);
    const auto YS = ufunc::zeros<float, Tg>(ufunc::shape{m}, d);
    check(shape_error_with("moves along", [&] { (void)ufunc::map_reduce(sqdiff{}, ufunc::plus{})(XM, YS, ufunc::axis(1)); }),
          "an x operand moving along the y axis: shape_error");
    const auto Y1 = ufunc::zeros<float, Tg>(ufunc::shape{1}, d);  // one y, broadcast along the call's axis 1
    check(shape_error_with("which it broadcasts along",
                           [&] { (void)ufunc::map_reduce(sqdiff{}, ufunc::plus{})(XM, Y1, ufunc::axis(1)); }),
          "a y operand broadcast along its axis: shape_error");
  }
  // b_j sharded unlike the y_j (all its rows on the first shard or rank).
  if ((d.spans_processes() ? d.ranks() : d.size()) > 1) {
    std::vector<ufunc::array<float, Tg>> parts;
    for (int i = 0; i < d.size(); ++i) {
      ufunc::detail::device_guard<Tg> g(d[i]);
      const bool first = d.spans_processes() ? d.rank() == 0 : i == 0;
      parts.push_back(ufunc::zeros<float, Tg>(ufunc::shape{first ? m : 0}));
    }
    const auto Bu = ufunc::sharded_array<float, Tg>::from_shards(d, std::move(parts));
    check(shape_error_with("sharded alike", [&] { (void)k(ufunc::vec<3>(X), ufunc::vec<3>(Y), Bu, ufunc::axis(1)); }),
          "y_j and b_j sharded unlike each other: shape_error");
  }
  // A map that throws on the last shard's (rank's) x rows, host shards: that
  // shard's exception (across ranks: there, and communication_error on the
  // others, every rank having taken part in every block's broadcast), and the
  // next call works.
  if constexpr (std::is_same_v<Tg, host>) {
    std::vector<float> hv(static_cast<std::size_t>(n * 3), 0.f);
    hv.back() = -1.f;  // x_{n-1}: on the last shard or rank
    const auto XT = ufunc::shard<host>(hv, ufunc::shape{n, 1, 3}, d);
    const auto picky = [](const P3& x, const P3& y) {
      if (x[2] < 0) throw std::runtime_error("negative coordinate");
      return x[0] * y[0];
    };
    int got = 0;  // 1 its own error, 2 communication_error
    try {
      (void)ufunc::map_reduce(picky, ufunc::plus{})(ufunc::vec<3>(XT), ufunc::vec<3>(Y), ufunc::axis(1));
    } catch (const ufunc::communication_error&) {
      got = 2;
    } catch (const std::runtime_error& e) {
      got = std::string(e.what()) == "negative coordinate" ? 1 : 3;
    }
    const bool last = !d.spans_processes() || d.rank() == d.ranks() - 1;
    check(got == (last ? 1 : 2), "a map throwing on the last rank's x rows, y sharded: got " + std::to_string(got));
    check(float(ufunc::map_reduce(gauss_b{}, ufunc::plus{})(ufunc::vec<3>(X), ufunc::vec<3>(Y), B)) == 0.f,
          "a call after the throwing one");
  }
  // One rank's (or device set's) call valid, the others' not: across ranks, rank
  // 0 reduces over axis 0 (refused there), the others over axis 1: every rank
  // throws shape_error (rank 0 its own, the others the disagreement), none waits.
  if (d.spans_processes()) {
    const bool zero = d.rank() == 0;
    std::string msg;
    try {
      (void)k(ufunc::vec<3>(X), ufunc::vec<3>(Y), B, ufunc::axis(zero ? 0 : 1));
    } catch (const ufunc::shape_error& e) {
      msg = e.what();
    }
    const bool ok = d.ranks() == 1 ? msg.find("which this reduction keeps") != std::string::npos
                                   : msg.find(zero ? "which this reduction keeps" : "disagree") != std::string::npos;
    check(ok, "axis 0 on rank 0 only, y sharded: shape_error on every rank (" + msg + ")");
    const float after = k(ufunc::vec<3>(X), ufunc::vec<3>(Y), B);
    check(after == 0.f, "a call after the refused one");
  }
}

// run<host>, errors<host> and, in CUDA builds, run<device> are compiled once, in
// tests/ring_cases.cpp (an object linked into every program that runs them:
// ufunc_tests for test_sharded_ring.cpp, the rank tests), not in each of the
// three files that run them.
#if !defined(UFUNC_RING_CASES_HERE)
extern template void run<host>(const ufunc::device_set&, index_t, index_t, std::uint64_t, const check_fn&);
extern template void errors<host>(const ufunc::device_set&, const ufunc::device_set&, const check_fn&);
#  if defined(UFUNC_BACKEND_CUDA)
extern template void run<ufunc::target::device>(const ufunc::device_set&, index_t, index_t, std::uint64_t,
                                                const check_fn&);
#  endif
#endif

}  // namespace ring_cases
