// Pairwise reductions with both operands sharded (issue 40) on host shards: a
// Gaussian kernel sum of N x N 3-D points over j with the x_i sharded and the
// y_j either given whole (replicated: every shard reads all of them) or sharded
// like the x_i (each shard takes one y block at a time, sharded/ring.hpp),
// timed alternately, medians, and the two results compared. In one process over
// 1, 2 and 4 host shards; with UFUNC_RANK, UFUNC_WORLD_SIZE and UFUNC_RENDEZVOUS
// set (a shell loop starting the ranks), over the ranks of the file rendezvous
// instead. Plain C++ (host target) in every build:
//   bench_ring_host [log2 N = 12] [reps = 5]
//   for r in 0 1; do UFUNC_RANK=$r UFUNC_WORLD_SIZE=2 UFUNC_RENDEZVOUS=/tmp/rdv OMP_NUM_THREADS=1 bench_ring_host & done; wait
#include <ufunc/file_communicator.hpp>
#include <ufunc/ufunc.hpp>

#include <cuda/std/array>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

using host = ufunc::target::host;
using P3 = cuda::std::array<float, 3>;

struct gauss_fn {
  float operator()(const P3& x, const P3& y) const {
    const float dx = x[0] - y[0], dy = x[1] - y[1], dz = x[2] - y[2];
    return expf(-0.5f * (dx * dx + dy * dy + dz * dz));
  }
};

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// Median milliseconds of a and b, called alternately (`reps` each, after one
/// warm-up of each); across ranks every call is collective and rank 0's clock
/// is reported.
std::pair<double, double> alternate(const std::function<void()>& a, const std::function<void()>& b, int reps) {
  a();
  b();
  std::vector<double> ta, tb;
  for (int r = 0; r < reps; ++r) {
    double t0 = now_ms();
    a();
    ta.push_back(now_ms() - t0);
    t0 = now_ms();
    b();
    tb.push_back(now_ms() - t0);
  }
  std::sort(ta.begin(), ta.end());
  std::sort(tb.begin(), tb.end());
  return {ta[ta.size() / 2], tb[tb.size() / 2]};
}

void run(const ufunc::device_set& d, long long n, int reps, bool print) {
  std::mt19937 g(12345);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> hx(static_cast<std::size_t>(3 * n)), hy(static_cast<std::size_t>(3 * n));
  for (auto& v : hx) v = u(g);
  for (auto& v : hy) v = u(g);
  const auto X = ufunc::shard<host>(hx, ufunc::shape{n, 1, 3}, d);
  const auto Yp = ufunc::asarray<host>(hy, ufunc::shape{n, 3});
  const auto Ys = ufunc::shard<host>(hy, ufunc::shape{n, 3}, d);
  const auto k = ufunc::map_reduce(gauss_fn{}, ufunc::plus{});
  ufunc::sharded_array<float, host> rep, ring;
  const auto t = alternate([&] { rep = k(ufunc::vec<3>(X), ufunc::vec<3>(Yp), ufunc::axis(1)); },
                           [&] { ring = k(ufunc::vec<3>(X), ufunc::vec<3>(Ys), ufunc::axis(1)); }, reps);
  const auto a = rep.to_host(), b = ring.to_host();
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::fabs(double(a[i]) - b[i]) / std::fabs(double(a[i])));
  const int shards = d.spans_processes() ? d.ranks() : d.size();
  if (print)
    std::printf("%d %s, N = %lld: y replicated %.1f ms (%.3f G pairs/s), y sharded %.1f ms (%.3f G pairs/s), "
                "sharded/replicated time %.3f, largest relative difference %.2e\n",
                shards, d.spans_processes() ? "ranks" : "host shards", n, t.first, double(n) * n / t.first / 1e6,
                t.second, double(n) * n / t.second / 1e6, t.second / t.first, worst);
}

}  // namespace

int main(int argc, char** argv) {
  const long long n = 1ll << (argc > 1 ? std::atoi(argv[1]) : 12);
  const int reps = argc > 2 ? std::atoi(argv[2]) : 5;
  if (std::getenv("UFUNC_RANK")) {
    const ufunc::communicator comm = ufunc::communicator_from_env();
    run(ufunc::device_set(comm, 0), n, reps, comm.rank() == 0);
    return 0;
  }
  for (const auto& d : {ufunc::device_set{0}, ufunc::device_set{0, 1}, ufunc::device_set{0, 1, 2, 3}}) run(d, n, reps, true);
  return 0;
}
