// Sharded arrays across MPI ranks, one GPU per rank (issue 40), against one rank
// alone in the same job: run as `mpiexec -n R bench_mpi [kernel-log2]`.
// Every measure alternates (one rank, all ranks, one rank, ...) and takes medians:
//   (1) the Gaussian pdf over R x 2^30 float32 against one GPU's 2^30
//       (targets: 2 ranks >= 1.95x, 4 ranks >= 3.8x the one rank's throughput);
//   (2) the whole sum of the same (>= 1.9x, >= 3.6x);
//   (3) a 16384^3 FP32 matmul, A sharded by rows, B given on every rank, against
//       one GPU's whole product (>= 1.85x, >= 3.5x);
//   (4) a Gaussian kernel sum of 2^K x 2^K 3-D points (K = 22 by default), x_i
//       sharded, y_j on every rank (4 ranks >= 3.6x; pairs/s reported); then the
//       same with the y_j sharded over the ranks too, each y block broadcast from
//       its rank in turn (docs/multi_gpu.md, "Both operands sharded"; reported,
//       no target);
//   (5) the all-reduce inside a reduction: a sum across axis 0 of an (R, 2^24)
//       array (one row a rank) less the same local pass on one rank alone (a
//       (1, 2^24) array) is the library's exchanges plus its all-reduce of the
//       64 MiB of partials, against a bare ncclAllReduce of the same bytes on
//       the same NCCL communicator (>= 0.9 of its speed); and a whole sum of
//       (R, 1) against a bare 4-byte ncclAllReduce (latency, reported only).
// "One rank" is rank 0 running the plain (unsharded) call on its GPU while the
// others wait in a barrier; each timing is the host clock from a barrier to a
// barrier after the call (every call ends synchronised). Each result is checked
// before it is timed: the pdf bit for bit against a one-row reference, the sum
// within the documented bound, matmul exactly (small-integer inputs), the kernel
// sum against the one-rank result, the axis-0 sum exactly.
// Needs MPI and NCCL in a CUDA build (scripts/gpu_mpi.sh --bench builds and runs it).
#include <ufunc/mpi.hpp>
#include <ufunc/ufunc.hpp>

#include <cuda/std/array>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "bench_util.hpp"
#include "sharded_data.hpp"

using namespace bench;

namespace {

int rank_ = 0, ranks_ = 1;

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// Barrier, fn() (on rank 0 alone when `alone`), barrier: the milliseconds, the same on every rank.
double timed(const std::function<void()>& fn, bool alone) {
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = now_ms();
  if (!alone || rank_ == 0) fn();
  MPI_Barrier(MPI_COMM_WORLD);
  double t = now_ms() - t0;
  MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);  // rank 0's clock decides
  return t;
}

/// Medians of `one` (rank 0 alone) and `all` (every rank), interleaved after a warm-up of each.
std::pair<double, double> one_vs_all(const std::function<void()>& one, const std::function<void()>& all, int reps) {
  timed(one, true);
  timed(all, false);
  std::vector<double> a, b;
  for (int i = 0; i < reps; ++i) {
    a.push_back(timed(one, true));
    b.push_back(timed(all, false));
  }
  return {median(a), median(b)};
}

void say(const std::string& what, double v, const std::string& unit, const std::string& target = "", bool pass = true) {
  if (rank_ == 0) report(what, v, unit, target, pass);
}
/// The ratio with its target for 2 and 4 ranks (reported only for other counts).
void say_ratio(const std::string& what, double r, double t2, double t4) {
  const double t = ranks_ == 2 ? t2 : ranks_ == 4 ? t4 : 0;
  char target[32];
  std::snprintf(target, sizeof target, ">= %.2f", t);
  say(what, r, "x", t > 0 ? target : "", r >= t);
}

/// Each rank's median time of fn() alone (its own clock, `reps` calls after a
/// warm-up; `together`: every rank at once, as for a collective): rank 0 reports
/// the fastest and slowest rank's.
void say_spread(const std::string& what, const std::function<void()>& fn, int reps = 15, bool together = false) {
  fn();
  MPI_Barrier(MPI_COMM_WORLD);
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    if (!together) MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = now_ms();
    fn();
    t.push_back(now_ms() - t0);
  }
  const double mine = median(t);
  std::vector<double> all(static_cast<std::size_t>(ranks_));
  MPI_Gather(&mine, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (rank_ == 0) {
    say(what + ", fastest rank", *std::min_element(all.begin(), all.end()) * 1e3, "us");
    say(what + ", slowest rank", *std::max_element(all.begin(), all.end()) * 1e3, "us");
  }
}

bool ok = true;
void expect(bool good, const std::string& what) {
  if (!good) {
    std::printf("rank %d: FAILED: %s\n", rank_, what.c_str());
    ok = false;
  }
}

using P3 = cuda::std::array<float, 3>;
struct gauss_fn {
  UFUNC_HD float operator()(P3 p, P3 q) const {
    const float dx = p[0] - q[0], dy = p[1] - q[1], dz = p[2] - q[2];
    return expf(-0.5f * (dx * dx + dy * dy + dz * dz));
  }
};


}  // namespace

int main(int argc, char** argv) {
#if !defined(UFUNC_HAVE_NCCL)
  (void)argc;
  (void)argv;
  std::printf("bench_mpi: needs NCCL (a CUDA build with UFUNC_HAVE_NCCL): nothing to measure\n");
  return 0;
#else
  MPI_Init(&argc, &argv);
  setenv("NCCL_NVLS_ENABLE", "0", 1);
  {
    const ufunc::communicator comm = ufunc::mpi_communicator(MPI_COMM_WORLD);
    rank_ = comm.rank();
    ranks_ = comm.size();
    const int K = argc > 1 ? std::atoi(argv[1]) : 22;
    const ufunc::device_set all(comm);
    cudaSetDevice(all[0]);
    if (rank_ == 0 && !bench_device("bench_mpi", with_cc_and_memory)) MPI_Abort(MPI_COMM_WORLD, 77);
    // Whether every rank has a GPU of its own (else NCCL is not used between them).
    const bool own = ufunc::detail::nccl::rank_comm(comm, all[0]) != nullptr || ranks_ == 1;
    if (rank_ == 0)
      std::printf("%d ranks, %d GPU(s) visible to each, %s\n\n", ranks_, static_cast<int>(ufunc::devices().size()),
                  own ? "one GPU per rank" : "ranks share GPUs: NOT the measured configuration");
    const auto pdf = ufunc::vectorize(pdf_fn{});
    const auto add = ufunc::vectorize(add_fn{});
    const auto differs = ufunc::map_reduce(differs_fn{}, ufunc::plus{});

    // ---- (1), (2): pdf and sum, 2^30 floats a rank ------------------------------
    {
      constexpr long long cols = 1024, rows1 = (1ll << 30) / cols;
      const auto row = ufunc::asarray(ramp(cols, -5.f, 10.f / cols), ufunc::shape{cols});
      const auto yrow = pdf(row);
      auto x = ufunc::zeros<float>(ufunc::shape{ranks_ * rows1, cols}, all);
      add(x, row, ufunc::out(x));
      auto y = ufunc::empty<float>(ufunc::shape{ranks_ * rows1, cols}, all);
      ufunc::array<float> x1, y1;
      if (rank_ == 0) {
        x1 = ufunc::zeros<float>(ufunc::shape{rows1, cols});
        add(x1, row, ufunc::out(x1));
        y1 = pdf(x1);
        ufunc::synchronize();
        expect(static_cast<long long>(differs(y1, yrow)) == 0, "one rank's pdf differs from the row reference");
      }
      pdf(x, ufunc::out(y));
      expect(static_cast<long long>(differs(y, yrow)) == 0, "the sharded pdf differs from the row reference");
      const double want = ufunc::reduce<double>(ufunc::plus{})(yrow) * double(ranks_ * rows1);
      const double n = double(ranks_ * rows1) * cols;
      const double bound = (std::log2(n) + 32 + ranks_) * 5.96e-8 * want;  // README: (log2 N + 32 + shards) eps sum|x|
      const double got = ufunc::sum(y);
      expect(std::fabs(got - want) <= bound, "sharded sum " + std::to_string(got) + " vs " + std::to_string(want));
      const auto tp = one_vs_all([&] { pdf(x1, ufunc::out(y1)); ufunc::synchronize(); }, [&] { pdf(x, ufunc::out(y)); }, 15);
      say("pdf 2^30 floats, one rank", tp.first, "ms");
      say("pdf " + std::to_string(ranks_) + " x 2^30 floats, every rank", tp.second, "ms");
      say_ratio("pdf throughput, all ranks / one", ranks_ * tp.first / tp.second, 1.95, 3.8);
      volatile double sink = 0;
      const auto ts = one_vs_all([&] { sink = ufunc::sum(y1); }, [&] { sink = ufunc::sum(y); }, 15);
      (void)sink;
      say("sum 2^30 floats, one rank", ts.first, "ms");
      say("sum " + std::to_string(ranks_) + " x 2^30 floats, every rank (partials all-reduced)", ts.second, "ms");
      say_ratio("sum throughput, all ranks / one", ranks_ * ts.first / ts.second, 1.9, 3.6);
      // Where a sharded call's time goes beyond its local pass (information):
      // each GPU's own sum of its rows (no exchange; the slowest sets the pace),
      say_spread("  each rank's plain sum of its 2^30 floats", [&] { sink = ufunc::sum(y.shard(0)); });
      // one all-gather of the 280-byte call description,
      struct desc {
        char bytes[280];
      };
      const desc dsc{};
      say_spread("  an all-gather of 280 bytes (every rank)", [&] { (void)comm.allgather(dsc); }, 200, true);
      // and a sharded call on one row a rank against the plain call on one row.
      const auto tiny = ufunc::full<float>(ufunc::shape{ranks_, 1}, 0.5f, all);
      auto tiny_out = ufunc::empty<float>(ufunc::shape{ranks_, 1}, all);
      const auto tiny1 = ufunc::full<float>(ufunc::shape{1, 1}, 0.5f);
      auto tiny1_out = ufunc::empty<float>(ufunc::shape{1, 1});
      const auto tt = one_vs_all([&] { pdf(tiny1, ufunc::out(tiny1_out)); ufunc::synchronize(); },
                                 [&] { pdf(tiny, ufunc::out(tiny_out)); }, 51);
      say("  pdf of one row, one rank (plain call)", tt.first * 1e3, "us");
      say("  pdf of one row a rank, every rank (sharded call)", tt.second * 1e3, "us");
      const auto tw = one_vs_all([&] { sink = ufunc::sum(tiny1); }, [&] { sink = ufunc::sum(tiny); }, 51);
      say("  sum of one row, one rank (plain call)", tw.first * 1e3, "us");
      say("  sum of one row a rank, every rank (sharded call)", tw.second * 1e3, "us");
    }

    // ---- (3): matmul 16384^3 FP32, A by rows, B on every rank ----------------------
    {
      constexpr long long n = 16384;
      const auto arow = ufunc::asarray(small_ints(n), ufunc::shape{1, n});
      const auto brow = ufunc::asarray(small_ints(n + 3), ufunc::shape{n + 3});
      auto b = ufunc::zeros<float>(ufunc::shape{n, n});
      add(b, brow.view().sliced(0, 3, n + 3), ufunc::out(b));
      auto a = ufunc::zeros<float>(ufunc::shape{n, n}, all);
      add(a, arow, ufunc::out(a));
      const auto crow = ufunc::matmul(arow, b);  // every row of the product (A's rows are equal; exact sums)
      ufunc::array<float> a1, c1;
      if (rank_ == 0) {
        a1 = ufunc::zeros<float>(ufunc::shape{n, n});
        add(a1, arow, ufunc::out(a1));
        c1 = ufunc::matmul(a1, b);
        ufunc::synchronize();
        expect(static_cast<long long>(differs(c1, crow)) == 0, "one rank's matmul differs");
      }
      ufunc::synchronize();
      auto c = ufunc::matmul(a, b);
      expect(static_cast<long long>(differs(c, crow)) == 0, "the sharded matmul differs");
      const auto tm = one_vs_all([&] { c1 = ufunc::matmul(a1, b); ufunc::synchronize(); }, [&] { c = ufunc::matmul(a, b); }, 5);
      const double flops = 2.0 * n * n * n;
      say("matmul 16384^3, one rank", flops / tm.first / 1e9, "TFLOP/s");
      say("matmul 16384^3, every rank (A by rows)", flops / tm.second / 1e9, "TFLOP/s");
      say_ratio("matmul throughput, all ranks / one", tm.first / tm.second, 1.85, 3.5);
    }

    // ---- (4): kernel sum of 2^K x 2^K 3-D points ----------------------------------------
    {
      const long long N = 1ll << K;
      std::mt19937 g(12345);
      std::uniform_real_distribution<float> u(-1.f, 1.f);
      std::vector<float> hx(static_cast<std::size_t>(3 * N)), hy(static_cast<std::size_t>(3 * N));
      for (auto& v : hx) v = u(g);
      for (auto& v : hy) v = u(g);
      const auto xs = ufunc::shard(hx, ufunc::shape{N, 1, 3}, all);
      const auto Y = ufunc::asarray(hy, ufunc::shape{1, N, 3});
      const auto k = ufunc::map_reduce(gauss_fn{}, ufunc::plus{});
      ufunc::array<float> X1, s1;
      if (rank_ == 0) X1 = ufunc::asarray(hx, ufunc::shape{N, 1, 3});
      auto one = [&] { s1 = k(ufunc::vec<3>(X1), ufunc::vec<3>(Y), ufunc::axis(1)); ufunc::synchronize(); };
      ufunc::sharded_array<float> s;
      auto every = [&] { s = k(ufunc::vec<3>(xs), ufunc::vec<3>(Y), ufunc::axis(1)); };
      const auto tk = one_vs_all(one, every, 2);
      const auto got = s.to_host(0);
      if (rank_ == 0) {
        const auto want = s1.to_host();
        long long bad = 0;
        for (std::size_t i = 0; i < want.size(); ++i) bad += std::fabs(got[i] - want[i]) > 1e-5f * std::fabs(want[i]);
        expect(got.size() == want.size() && bad == 0, "kernel sum differs from one rank's in " + std::to_string(bad));
      }
      const double pairs = double(N) * double(N);
      say("kernel sum 2^" + std::to_string(K) + " x 2^" + std::to_string(K) + ", one rank", pairs / tk.first / 1e9, "T pairs/s");
      say("kernel sum, every rank (x_i sharded, y_j on every rank)", pairs / tk.second / 1e9, "T pairs/s");
      say_ratio("kernel sum throughput, all ranks / one", tk.first / tk.second, 0, 3.6);
      // The y_j sharded too: no rank holds all of them (the blocks travel).
      const auto ys = ufunc::shard(hy, ufunc::shape{N, 3}, all);
      ufunc::sharded_array<float> s2;
      auto both = [&] { s2 = k(ufunc::vec<3>(xs), ufunc::vec<3>(ys), ufunc::axis(1)); };
      const auto tb = one_vs_all(one, both, 2);
      const auto got2 = s2.to_host(0);
      if (rank_ == 0) {
        const auto want = s1.to_host();
        long long bad = 0;
        for (std::size_t i = 0; i < want.size(); ++i) bad += std::fabs(got2[i] - want[i]) > 1e-5f * std::fabs(want[i]);
        expect(got2.size() == want.size() && bad == 0, "kernel sum with y sharded differs from one rank's in " + std::to_string(bad));
      }
      say("kernel sum, every rank (x_i and y_j sharded, y blocks broadcast)", pairs / tb.second / 1e9, "T pairs/s");
      say_ratio("kernel sum with y sharded, all ranks / one", tb.first / tb.second, 0, 0);
    }

    // ---- (5): the all-reduce inside a reduction against a bare ncclAllReduce ---------------
    if (ranks_ > 1 && own) {
      const ncclComm_t nc = ufunc::detail::nccl::rank_comm(comm, all[0]);
      cudaStream_t st;
      cudaStreamCreate(&st);
      for (long long L : {1ll << 24, 1ll}) {
        const auto x = ufunc::full<float>(ufunc::shape{ranks_, L}, 1.0f, all);
        float* buf = nullptr;
        cudaMalloc(&buf, static_cast<std::size_t>(L) * sizeof(float));
        auto bare = [&] {
          ncclAllReduce(buf, buf, static_cast<std::size_t>(L), ncclFloat32, ncclSum, nc, st);
          cudaStreamSynchronize(st);
        };
        ufunc::sharded_array<float> r;
        float whole = 0, whole1 = 0;
        auto lib = [&] {
          if (L > 1) r = ufunc::sum(x, ufunc::axis(0));
          else whole = ufunc::sum(x);
        };
        // The sum's local pass alone: rank 0's (1, L) row reduced over axis 0, no exchange.
        ufunc::array<float> x1, r1;
        if (rank_ == 0) x1 = ufunc::full<float>(ufunc::shape{1, L}, 1.0f);
        auto local = [&] {
          if (L > 1) {
            r1 = ufunc::sum(x1, ufunc::axis(0));
            ufunc::synchronize();
          } else {
            whole1 = ufunc::sum(x1);
          }
        };
        timed(bare, false);  // warm-ups (bare and lib are collective: every rank runs them)
        timed(lib, false);
        timed(local, true);
        std::vector<double> tbare, tlib, tlocal;
        for (int i = 0; i < 25; ++i) {
          tbare.push_back(timed(bare, false));
          tlib.push_back(timed(lib, false));
          tlocal.push_back(timed(local, true));
        }
        if (L > 1) {
          expect(static_cast<long long>(ufunc::sum(r.shard(0))) == L * ranks_, "axis-0 sum across ranks");
          const double mb = double(L) * 4 / (1 << 20);
          say("bare ncclAllReduce of " + std::to_string(int(mb)) + " MiB", median(tbare), "ms");
          say("sum over axis 0 of (R, 2^24) float32, every rank", median(tlib), "ms");
          say("  its local pass alone: sum over axis 0 of (1, 2^24), one rank", median(tlocal), "ms");
          const double inside = median(tlib) - median(tlocal);
          say("  the rest: exchanges + all-reduce of the 64 MiB partials", inside, "ms");
          const double ratio = median(tbare) / inside;
          say("sum's all-reduce speed / bare ncclAllReduce (same bytes)", ratio, "ratio", ">= 0.90", ratio >= 0.9);
          say("whole call / bare ncclAllReduce (information)", median(tbare) / median(tlib), "ratio");
        } else {
          expect(whole == float(ranks_), "whole sum across ranks");
          say("bare ncclAllReduce of 4 bytes", median(tbare) * 1e3, "us");
          say("whole sum of (R, 1) float32 (its exchanges: values all-gathered)", median(tlib) * 1e3, "us");
          say("  a whole sum of (1, 1) on one rank", median(tlocal) * 1e3, "us");
        }
        cudaFree(buf);
      }
      cudaStreamDestroy(st);
    }
    if (rank_ == 0) summary("bench_mpi");
    int bad = ok ? 0 : 1, any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    ok = any == 0;
  }
  MPI_Finalize();
  return ok ? 0 : 1;
#endif
}
