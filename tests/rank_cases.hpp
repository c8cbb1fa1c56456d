// The sharded calls every multi-process test runs over its communicator
// (tests/mpi/test_mpi.cpp over MPI, tests/file_comm/test_file_comm.cpp over the
// file rendezvous): an (n, 3) array sharded over the ranks from the same data on
// every rank (a fixed seed), each result checked against a loop over the whole
// data. A failed check is counted in rank_cases::failures and printed.
#pragma once

#include <ufunc/ufunc.hpp>

#include "ring_cases.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cuda/std/array>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

// A named namespace: nvcc's extended lambdas (UFUNC_HD) may not sit in a
// function of internal linkage.
namespace rank_cases {

using host = ufunc::target::host;
using ufunc::index_t;

inline int failures = 0;
inline int rank = 0;  ///< this process's rank, for the messages

inline void check(bool ok, const std::string& what) {
  if (!ok) {
    ++failures;
    std::fprintf(stderr, "rank %d: FAILED: %s\n", rank, what.c_str());
  }
}
template <class Tg>
ufunc::array<float, Tg> host_array(const std::vector<float>& v, const ufunc::shape& s) {
  return ufunc::asarray<Tg>(v, s);
}

inline bool close(double got, double want, double rel) { return std::fabs(got - want) <= rel * (std::fabs(want) + 1e-30); }

inline std::vector<float> random_floats(std::size_t n, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(g);
  return v;
}

// A sharded (n, 3) float array and an (n, 3) int array from the same data on every rank.
template <class Tg>
void run_case(const ufunc::device_set& d, index_t n) {
  const auto pdf = ufunc::vectorize<Tg>([] UFUNC_HD(float x, float mu) {
    const float z = x - mu;
    return 0.3989422804f * expf(-0.5f * z * z);
  });
  const int P = d.ranks();
  const std::string at = " (n = " + std::to_string(n) + ", " + std::to_string(P) + " ranks, " +
                         (std::is_same_v<Tg, host> ? "host" : "GPU") + " shards)";
  const auto h = random_floats(static_cast<std::size_t>(n * 3), 7u + static_cast<unsigned>(n));
  const auto x = ufunc::shard<Tg>(h, ufunc::shape{n, 3}, d);

  // The split: NumPy's array_split rows over the ranks, this rank's rows local.
  const auto want_rows = ufunc::detail::split_rows(n, P);
  check(x.shape() == ufunc::shape({n, 3}), "global shape " + x.shape().str() + at);
  check(x.global_rows() == want_rows, "global rows " + x.sharding() + at);
  check(x.rows().size() == 1 && x.rows()[0] == want_rows[static_cast<std::size_t>(d.rank())], "local rows" + at);
  index_t first = 0;
  for (int r = 0; r < d.rank(); ++r) first += want_rows[static_cast<std::size_t>(r)];
  check(x.row_offsets() == std::vector<index_t>{first}, "row offset" + at);
  check(x.shard(0).size() == want_rows[static_cast<std::size_t>(d.rank())] * 3, "local shard size" + at);
  bool local_ok = true;
  const auto local = x.shard(0).to_host();
  for (index_t k = 0; k < x.shard(0).size(); ++k) local_ok &= local[static_cast<std::size_t>(k)] == h[static_cast<std::size_t>(first * 3 + k)];
  check(local_ok, "local shard holds this rank's rows" + at);
  check(x.to_host() == h, "to_host gathers every rank's rows" + at);
  const int root = P - 1;
  const auto on_root = x.to_host(root);
  check(d.rank() == root ? on_root == h : on_root.empty(), "to_host(root) on rank " + std::to_string(root) + " only" + at);
  const auto xs = ufunc::shard<Tg>(d.rank() == root ? h.data() : nullptr, ufunc::shape{n, 3}, d, root);
  check(xs.global_rows() == want_rows && xs.to_host() == h, "shard of the root's data (scatter)" + at);

  // Elementwise, with a plain (replicated) operand broadcast along the rows.
  const std::vector<float> mu_h = {0.1f, -0.2f, 0.3f};
  const auto mu = host_array<Tg>(mu_h, ufunc::shape{3});
  const auto y = pdf(x, mu);
  const auto yh = y.to_host();
  bool pdf_ok = yh.size() == h.size() && y.global_rows() == want_rows;
  for (std::size_t k = 0; pdf_ok && k < h.size(); ++k) {
    const float z = h[k] - mu_h[k % 3];
    pdf_ok = close(yh[k], 0.3989422804 * std::exp(-0.5 * double(z) * z), 2e-6);  // ~6 roundings, expf <= 2 ulp
  }
  check(pdf_ok, "pdf(x, mu)" + at);
  auto y2 = ufunc::empty<float, Tg>(ufunc::shape{n, 3}, d);
  pdf(x, mu, ufunc::out(y2));
  check(y2.to_host() == yh, "pdf(x, mu, out(y))" + at);

  // A lazy expression, one fused pass per rank.
  const auto e = ufunc::evaluate(ufunc::lazy(x) * 2.0f + y);
  const auto eh = e.to_host();
  bool lazy_ok = eh.size() == h.size();
  for (std::size_t k = 0; lazy_ok && k < h.size(); ++k)  // one rounding of 2x + y (contracted or not)
    lazy_ok = std::fabs(eh[k] - (2.0 * h[k] + yh[k])) <= 1.2e-7 * (std::fabs(2.0 * h[k]) + std::fabs(yh[k]));
  check(lazy_ok, "evaluate(lazy(x) * 2 + y)" + at);

  // Reductions across the ranks: whole, axis 0, axis 1 (kept sharded), mean,
  // max, a sum with an initial value (applied once), integers exactly.
  double s = 0, sabs = 0, mx = -1e30;
  std::vector<double> col(3, 0.0), col_abs(3, 0.0);
  for (std::size_t k = 0; k < h.size(); ++k) {
    s += h[k];
    sabs += std::fabs(h[k]);
    mx = std::max(mx, double(h[k]));
    col[k % 3] += h[k];
    col_abs[k % 3] += std::fabs(h[k]);
  }
  // docs/multi_gpu.md's bound for sharded float sums: (log2(N) + 32 + shards) eps sum|x|.
  const double tol = (std::log2(double(n * 3) + 1) + 32 + P) * 1.1920929e-7;
  if (n > 0) {
    const float got = ufunc::sum(x);
    check(std::fabs(got - s) <= tol * sabs, "sum(x) = " + std::to_string(got) + ", loop " + std::to_string(s) + at);
    const float m = ufunc::mean(x);
    check(std::fabs(m - s / double(n * 3)) <= tol * sabs / double(n * 3), "mean(x)" + at);
    check(float(ufunc::max(x)) == float(mx), "max(x)" + at);
    const float g5 = ufunc::reduce(ufunc::plus{}, 5.0f)(x);
    check(std::fabs(g5 - (s + 5)) <= tol * (sabs + 5), "sum with initial 5 (applied once) = " + std::to_string(g5) + at);
  } else {
    check(float(ufunc::sum(x)) == 0.f, "sum of no rows is 0" + at);
    check(std::isnan(float(ufunc::mean(x))), "mean of no rows is NaN" + at);
    bool threw = false;
    try {
      (void)ufunc::max(x);
    } catch (const ufunc::value_error&) {
      threw = true;
    }
    check(threw, "max of no rows: value_error on every rank" + at);
  }
  const auto c0 = ufunc::sum(x, ufunc::axis(0));
  const auto c0h = c0.to_host();
  bool c0_ok = c0h.size() == 3;
  for (int j = 0; c0_ok && j < 3; ++j) c0_ok = std::fabs(c0h[static_cast<std::size_t>(j)] - col[static_cast<std::size_t>(j)]) <= tol * col_abs[static_cast<std::size_t>(j)];
  check(c0_ok, "sum(x, axis 0)" + at);
  const auto r1 = ufunc::sum(x, ufunc::axis(1));
  const auto r1h = r1.to_host();
  bool r1_ok = r1h.size() == static_cast<std::size_t>(n) && r1.global_rows() == want_rows;
  for (index_t i = 0; r1_ok && i < n; ++i) {
    const double w = double(h[static_cast<std::size_t>(3 * i)]) + h[static_cast<std::size_t>(3 * i + 1)] + h[static_cast<std::size_t>(3 * i + 2)];
    r1_ok = std::fabs(r1h[static_cast<std::size_t>(i)] - w) <= 1e-6;
  }
  check(r1_ok, "sum(x, axis 1) stays sharded" + at);

  std::vector<int> hi(h.size());
  long long si = 0;
  for (std::size_t k = 0; k < h.size(); ++k) si += hi[k] = static_cast<int>(h[k] * 1000);
  const auto xi = ufunc::shard<Tg>(hi, ufunc::shape{n, 3}, d);
  check(static_cast<long long>(ufunc::sum(xi)) == si, "integer sum exact" + at);

  // argmax/argmin across the ranks: many equal values (the first must win) and,
  // from 4 rows on, a NaN (the first NaN wins), whole and over axis 0.
  if (n > 0) {
    std::vector<float> hq(h.size());
    for (std::size_t k = 0; k < h.size(); ++k) hq[k] = std::floor(h[k] * 3);
    if (n >= 4) hq[static_cast<std::size_t>(3 * (n / 2) + 1)] = std::nanf("");
    const auto q = ufunc::shard<Tg>(hq, ufunc::shape{n, 3}, d);
    auto first = [&](bool mx, index_t start, index_t count, index_t step) {
      index_t best = 0;
      for (index_t k = 1; k < count; ++k) {
        const float b = hq[static_cast<std::size_t>(start + best * step)], v = hq[static_cast<std::size_t>(start + k * step)];
        if (std::isnan(b)) break;
        if (std::isnan(v) || (mx ? v > b : v < b)) best = k;
      }
      return best;
    };
    check(index_t(ufunc::argmax(q)) == first(true, 0, n * 3, 1), "argmax(x)" + at);
    check(index_t(ufunc::argmin(q)) == first(false, 0, n * 3, 1), "argmin(x)" + at);
    const auto a0 = ufunc::argmax(q, ufunc::axis(0)).to_host();
    bool a0_ok = a0.size() == 3;
    for (index_t j = 0; a0_ok && j < 3; ++j) a0_ok = index_t(a0[static_cast<std::size_t>(j)]) == first(true, j, n, 3);
    check(a0_ok, "argmax(x, axis 0)" + at);
  }

  // matmul: A sharded by rows times a replicated B.
  const auto hb = random_floats(3 * 4, 99);
  const auto B = host_array<Tg>(hb, ufunc::shape{3, 4});
  const auto C = ufunc::matmul(x, B).to_host();
  bool mm_ok = C.size() == static_cast<std::size_t>(n * 4);
  for (index_t i = 0; mm_ok && i < n; ++i)
    for (int j = 0; mm_ok && j < 4; ++j) {
      double w = 0;
      for (int k = 0; k < 3; ++k) w += double(h[static_cast<std::size_t>(3 * i + k)]) * hb[static_cast<std::size_t>(4 * k + j)];
      mm_ok = std::fabs(C[static_cast<std::size_t>(4 * i + j)] - w) <= 1e-6;  // 3 FP32 products of |x| <= 1 (no TF32)
    }
  check(mm_ok, "matmul(x, B)" + at);

  // Reductions into out(...): a sharded out along axis 1, a plain one (each
  // rank's own) over axis 0, equal to the reductions without out.
  {
    auto ys = ufunc::full<float, Tg>(ufunc::shape{n}, -9.f, d);
    (void)ufunc::sum(x, ufunc::axis(1), ufunc::out(ys));
    check(ys.to_host() == ufunc::sum(x, ufunc::axis(1)).to_host(), "sum(x, axis 1, out(sharded))" + at);
    auto z = ufunc::full<float, Tg>(ufunc::shape{3}, -9.f);
    (void)ufunc::sum(x, ufunc::axis(0), ufunc::out(z));
    check(z.to_host() == ufunc::sum(x, ufunc::axis(0)).to_host(), "sum(x, axis 0, out(plain))" + at);
  }

  // Pairwise over the ranks: the x_i (this case's rows as points) sharded, the
  // y_j given on every rank; a Gaussian kernel sum over j (each rank its rows),
  // over i (the ranks' partials combined) and the nearest y_j (argmin of a lazy
  // distance), against double loops.
  using P3 = cuda::std::array<float, 3>;
  const index_t m = 257;
  const auto hy = random_floats(static_cast<std::size_t>(m * 3), 5);
  const auto Y = host_array<Tg>(hy, ufunc::shape{m, 3});
  const auto xp = ufunc::shard<Tg>(h, ufunc::shape{n, 1, 3}, d);
  const auto k = ufunc::map_reduce([] UFUNC_HD(P3 p, P3 q) {
    const float dx = p[0] - q[0], dy = p[1] - q[1], dz = p[2] - q[2];
    return expf(-0.5f * (dx * dx + dy * dy + dz * dz));
  }, ufunc::plus{});
  auto d2 = [&](index_t i, index_t j) {
    double t = 0;
    for (int c = 0; c < 3; ++c) {
      const double e = double(h[static_cast<std::size_t>(3 * i + c)]) - hy[static_cast<std::size_t>(3 * j + c)];
      t += e * e;
    }
    return t;
  };
  // Positive terms: relative to the sum, the documented sum bound ((32 + log2 of
  // the count) eps on the host, 256 + log2 in the GPU's tiled kernel), a rounding
  // per rank and a few of each term (the differences, expf), never above 1e-5.
  auto tol_for = [&](index_t count) {
    const double lead = std::is_same_v<Tg, host> ? 32 : 256;
    return std::min(1e-5, (lead + std::log2(double(count) + 1) + P + 6) * 1.1920929e-7);
  };
  const auto ki = k(ufunc::vec<3>(xp), ufunc::vec<3>(Y), ufunc::axis(1)).to_host();
  bool ki_ok = ki.size() == static_cast<std::size_t>(n);
  for (index_t i = 0; ki_ok && i < n; ++i) {
    double w = 0;
    for (index_t j = 0; j < m; ++j) w += std::exp(-0.5 * d2(i, j));
    ki_ok = close(ki[static_cast<std::size_t>(i)], w, tol_for(m));
  }
  check(ki_ok, "kernel sum over j of vec<3> x_i sharded" + at);
  if (n > 0) {
    const auto kj = k(ufunc::vec<3>(xp), ufunc::vec<3>(Y), ufunc::axis(0)).to_host();
    bool kj_ok = kj.size() == static_cast<std::size_t>(m);
    for (index_t j = 0; kj_ok && j < m; ++j) {
      double w = 0;
      for (index_t i = 0; i < n; ++i) w += std::exp(-0.5 * d2(i, j));
      kj_ok = close(kj[static_cast<std::size_t>(j)], w, tol_for(n));
    }
    check(kj_ok, "kernel sum over i across the ranks" + at);
  }
  const auto dist2 = ufunc::vectorize<Tg>([] UFUNC_HD(P3 p, P3 q) {
    const float dx = p[0] - q[0], dy = p[1] - q[1], dz = p[2] - q[2];
    return dx * dx + dy * dy + dz * dz;
  });
  const auto nn = ufunc::argmin(dist2.lazy(ufunc::vec<3>(xp), ufunc::vec<3>(Y)), ufunc::axis(1)).to_host();
  bool nn_ok = nn.size() == static_cast<std::size_t>(n);
  for (index_t i = 0; nn_ok && i < n; ++i) {
    const auto j = static_cast<index_t>(nn[static_cast<std::size_t>(i)]);
    double best = d2(i, 0);
    for (index_t q = 1; q < m; ++q) best = std::min(best, d2(i, q));
    nn_ok = j >= 0 && j < m && d2(i, j) <= best + 1e-6;  // the least distance, to float rounding
  }
  check(nn_ok, "nearest y_j of each sharded x_i (argmin of a lazy distance)" + at);
}


/// broadcast_from: every rank gets the root's array (roots 0 and the last; float
/// and int64; host or GPU memory); ranks that disagree on the shape throw
/// shape_error on every rank; a root out of range is a value_error everywhere.
template <class Tg>
void broadcast_case(const ufunc::device_set& d) {
  const int P = d.ranks(), me = d.rank();
  const std::string at = std::string(" (") + (std::is_same_v<Tg, host> ? "host" : "GPU") + " memory)";
  for (int root : {0, P - 1}) {
    std::vector<float> mine(35);
    std::vector<std::int64_t> mine_i(9);
    for (std::size_t i = 0; i < mine.size(); ++i) mine[i] = float(me * 1000 + int(i));
    for (std::size_t i = 0; i < mine_i.size(); ++i) mine_i[i] = (std::int64_t(me) << 40) + std::int64_t(i);
    auto x = ufunc::asarray<Tg>(mine, ufunc::shape{5, 7});
    auto xi = ufunc::asarray<Tg>(mine_i, ufunc::shape{9});
    ufunc::broadcast_from(x, d, root);
    ufunc::broadcast_from(xi.view(), d, root);
    std::vector<float> want(35);
    std::vector<std::int64_t> want_i(9);
    for (std::size_t i = 0; i < want.size(); ++i) want[i] = float(root * 1000 + int(i));
    for (std::size_t i = 0; i < want_i.size(); ++i) want_i[i] = (std::int64_t(root) << 40) + std::int64_t(i);
    check(x.to_host() == want && xi.to_host() == want_i, "broadcast_from rank " + std::to_string(root) + at);
  }
  auto odd = ufunc::zeros<float, Tg>(me == 0 ? ufunc::shape{5, 6} : ufunc::shape{5, 7});
  bool threw = false;
  try {
    ufunc::broadcast_from(odd, d, 0);
  } catch (const ufunc::shape_error&) {
    threw = true;
  }
  check(threw == (P > 1), "broadcast_from with rank 0's shape different: shape_error on every rank" + at);
  threw = false;
  try {
    ufunc::broadcast_from(odd, d, P);
  } catch (const ufunc::value_error&) {
    threw = true;
  }
  check(threw, "broadcast_from from a rank out of range: value_error" + at);
}

/// A function that throws on the last rank's rows: that rank gets its exception,
/// the others communication_error, in an elementwise call and in a reduction's
/// map; the next call works on every rank (host shards: device code cannot throw).
#if defined(UFUNC_RANK_CASES_HERE)
void throwing_case(const ufunc::device_set& d) {
  const int P = d.ranks();
  const index_t n = 6 * P;
  std::vector<float> hv(static_cast<std::size_t>(n), 1.f);
  hv[static_cast<std::size_t>(n - 1)] = -1.f;  // the last rank's rows
  const auto v = ufunc::shard<host>(hv, ufunc::shape{n}, d);
  const auto twice = [](float a) {
    if (a < 0) throw std::runtime_error("negative input");
    return a * 2;
  };
  const auto picky = ufunc::vectorize<host>(twice);
  int got = 0;  // 1 its own error, 2 communication_error
  try {
    (void)picky(v);
  } catch (const ufunc::communication_error&) {
    got = 2;
  } catch (const std::runtime_error& e) {
    got = std::string(e.what()) == "negative input" ? 1 : 3;
  }
  check(got == (d.rank() == P - 1 ? 1 : 2), "a throwing function on one rank: got " + std::to_string(got));
  got = 0;
  try {
    (void)ufunc::map_reduce(twice, ufunc::plus{})(v);
  } catch (const ufunc::communication_error&) {
    got = 2;
  } catch (const std::runtime_error& e) {
    got = std::string(e.what()) == "negative input" ? 1 : 3;
  }
  check(got == (d.rank() == P - 1 ? 1 : 2), "a throwing map in a sum on one rank: got " + std::to_string(got));
  check(float(ufunc::sum(v)) == float(n - 2), "a call after the failures");
}
#else
void throwing_case(const ufunc::device_set& d);
#endif

/// Pairwise reductions with both operands sharded over the ranks (issue 40):
/// the x_i and the y_j, b_j each split over the ranks, every y block broadcast
/// from its rank in turn (sharded/ring.hpp); tests/ring_cases.hpp's checks on
/// fresh data (rank 0's seed, sent to every rank; printed with each failure) at
/// sizes with ranks holding no y or one y, then the refused calls (host shards).
template <class Tg>
void ring_case(const ufunc::device_set& d) {
  const int P = d.ranks();
  const std::uint64_t mine = (std::uint64_t(std::random_device{}()) << 32) ^ std::random_device{}();
  const std::uint64_t seed = d.comm().allgather(mine)[0];
  const ring_cases::check_fn report = [](bool ok, const std::string& what) { check(ok, what); };
  const std::vector<std::pair<index_t, index_t>> sizes{
      {37, 301}, {0, 5}, {4, 1}, {7, index_t(2 * P - 1)}, {index_t(P + 1), 2}, {130, 1100}, {1, 3}};
  for (std::size_t q = 0; q < sizes.size(); ++q) ring_cases::run<Tg>(d, sizes[q].first, sizes[q].second, seed + 10 * q, report);
  if constexpr (std::is_same_v<Tg, host>) ring_cases::errors<host>(d, ufunc::device_set(d.comm(), 1), report);
}

// run_case, broadcast_case and ring_case of each target, and throwing_case, are
// compiled once, in tests/rank_cases.cpp (an object linked into the two rank
// programs, tests/mpi and tests/file_comm), not in each of them.
#if !defined(UFUNC_RANK_CASES_HERE)
extern template void run_case<host>(const ufunc::device_set&, index_t);
extern template void broadcast_case<host>(const ufunc::device_set&);
extern template void ring_case<host>(const ufunc::device_set&);
#  if defined(UFUNC_BACKEND_CUDA)
extern template void run_case<ufunc::target::device>(const ufunc::device_set&, index_t);
extern template void broadcast_case<ufunc::target::device>(const ufunc::device_set&);
extern template void ring_case<ufunc::target::device>(const ufunc::device_set&);
#  endif
#endif

}  // namespace rank_cases
