// Sharded arrays across MPI ranks (issue 40): run under `mpiexec -n R` (ctest
// runs R = 1, 2, 3), host shards; compiled by nvcc (a CUDA build, where the
// device set spans processes with one GPU per rank) also GPU shards. Every rank builds the same random
// data (a fixed seed), makes the sharded call and checks the result against a
// plain loop over the whole data (the cases shared with tests/file_comm:
// tests/rank_cases.hpp); the ranks' failure counts are summed at the
// end and every rank exits non-zero if any rank failed.
#include <ufunc/mpi.hpp>
#include <ufunc/ufunc.hpp>

#include "../rank_cases.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cuda/std/array>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace rank_cases;
int& rank_ = rank_cases::rank;

template <class Tg>
void run_all(const ufunc::communicator& comm, const ufunc::device_set& d) {
  const int mpi_size = comm.size();
  for (index_t n : {index_t(0), index_t(1), index_t(mpi_size - 1 > 0 ? mpi_size - 1 : 2), index_t(mpi_size), index_t(7),
                    index_t(1000), index_t(100003)})
    run_case<Tg>(d, n);
  broadcast_case<Tg>(d);

  // Shards made by each rank from its own rows (a different count per rank).
  {
    const index_t mine = 2 + comm.rank();
    std::vector<float> local(static_cast<std::size_t>(mine * 2), float(comm.rank()));
    std::vector<ufunc::array<float, Tg>> parts;
    parts.push_back(host_array<Tg>(local, ufunc::shape{mine, 2}));
    const auto a = ufunc::sharded_array<float, Tg>::from_shards(d, std::move(parts));
    index_t total = 0;
    double want = 0;
    for (int r = 0; r < mpi_size; ++r) {
      total += 2 + r;
      want += double(r) * 2 * (2 + r);
    }
    check(a.shape() == ufunc::shape({total, 2}), "from_shards: global shape " + a.sharding());
    check(float(ufunc::sum(a)) == float(want), "from_shards: sum of every rank's rows");
  }

  // Ranks that disagree: shape_error on every rank, none left waiting.
  if (mpi_size > 1) {
    bool root_err = false;
    const auto z = ufunc::zeros<float, Tg>(ufunc::shape{4, 2}, d);
    try {
      (void)z.to_host(comm.rank() == 0 ? 0 : 1);
    } catch (const ufunc::value_error&) {
      root_err = true;
    }
    check(root_err, "to_host(root) with a different root per rank: value_error on every rank");
    root_err = false;
    try {
      std::vector<float> hz(8, 1.f);
      (void)ufunc::shard<Tg>(comm.rank() == 0 ? nullptr : hz.data(), ufunc::shape{4, 2}, d, 0);
    } catch (const ufunc::value_error&) {
      root_err = comm.rank() == 0;
    } catch (const ufunc::communication_error&) {
      root_err = comm.rank() != 0;
    }
    check(root_err, "shard from a root whose data is null: value_error there, communication_error elsewhere");
    bool threw = false;
    try {
      (void)ufunc::empty<float, Tg>(ufunc::shape{10 + comm.rank(), 2}, d);
    } catch (const ufunc::shape_error& e) {
      threw = std::string(e.what()).find("disagree") != std::string::npos;
    }
    check(threw, "empty with a different shape per rank: shape_error on every rank");
    const auto x = ufunc::zeros<float, Tg>(ufunc::shape{8, 4}, d);
    const auto b = host_array<Tg>(std::vector<float>(4, 0.f), comm.rank() == 0 ? ufunc::shape{4} : ufunc::shape{1, 4});
    threw = false;
    try {
      (void)ufunc::vectorize<Tg>([] UFUNC_HD(float p, float q) { return p + q; })(x, b);
    } catch (const ufunc::shape_error& e) {
      threw = std::string(e.what()).find("disagree") != std::string::npos;
    }
    check(threw, "a plain operand of a different shape per rank: shape_error on every rank");
    // Reductions agree while their local pass computes: a whole sum on rank 0
    // and an axis-0 sum elsewhere still throw on every rank, and the next call works.
    const auto ones = ufunc::full<float, Tg>(ufunc::shape{8, 4}, 1.f, d);
    threw = false;
    try {
      if (comm.rank() == 0)
        (void)ufunc::sum(ones);
      else
        (void)ufunc::sum(ones, ufunc::axis(0));
    } catch (const ufunc::shape_error& e) {
      threw = std::string(e.what()).find("disagree") != std::string::npos;
    }
    check(threw, "a whole sum on rank 0, an axis-0 sum on the others: shape_error on every rank");
    check(float(ufunc::mean(ones)) == 1.f, "a whole mean after the disagreement");
    // A max over no rows on rank 0 only (no identity there; other arrays
    // elsewhere): shape_error on every rank from the agreement, not a value_error
    // on rank 0 alone while the others wait.
    const auto none = ufunc::zeros<float, Tg>(ufunc::shape{0, 2}, d);
    const auto some = ufunc::zeros<float, Tg>(ufunc::shape{4, 2}, d);
    threw = false;
    try {
      (void)ufunc::max(comm.rank() == 0 ? none : some);
    } catch (const ufunc::shape_error& e) {
      threw = std::string(e.what()).find("disagree") != std::string::npos;
    } catch (const ufunc::value_error&) {
    }
    check(threw, "a max over no rows on rank 0 only: shape_error on every rank");
    // An axis out of range on rank 0 only, for a sum and an argmax: rank 0's own
    // shape_error there, the agreement's elsewhere, and no rank left waiting.
    for (int arg = 0; arg < 2; ++arg) {
      const int axis = comm.rank() == 0 ? 5 : 1;
      std::string what;
      try {
        if (arg)
          (void)ufunc::argmax(some, ufunc::axis(axis));
        else
          (void)ufunc::sum(some, ufunc::axis(axis));
      } catch (const ufunc::shape_error& e) {
        what = e.what();
      }
      const bool mine = what.find(comm.rank() == 0 ? "out of range" : "disagree") != std::string::npos;
      check(comm.size() == 1 ? (comm.rank() == 0 && mine) : mine,
            arg ? "an argmax over axis 5 on rank 0 only: shape_error on every rank"
                : "a sum over axis 5 on rank 0 only: shape_error on every rank");
    }
    check(float(ufunc::mean(ones)) == 1.f, "a whole mean after the axis error");
    // One rank's out of the wrong shape: its shape_error there, communication_error
    // elsewhere, before any collective of the reduction; no out written.
    auto zo = host_array<Tg>(std::vector<float>(comm.rank() == 0 ? 3 : 4, -9.f), comm.rank() == 0 ? ufunc::shape{3} : ufunc::shape{4});
    int got = 0;
    try {
      (void)ufunc::sum(ones, ufunc::axis(0), ufunc::out(zo));
    } catch (const ufunc::shape_error&) {
      got = 1;
    } catch (const ufunc::communication_error&) {
      got = 2;
    }
    check(got == (comm.rank() == 0 ? 1 : 2) && zo.to_host() == std::vector<float>(zo.size(), -9.f),
          "an out of the wrong shape on rank 0: got " + std::to_string(got));
    check(float(ufunc::sum(ones)) == 32.f, "a sum after the bad out");
    // The same, the difference in the ninth plain operand (past the first 240
    // characters of the call's description: its hash still differs).
    const auto c = host_array<Tg>(std::vector<float>(4, 0.f), ufunc::shape{4});
    const auto f10 = ufunc::vectorize<Tg>([] UFUNC_HD(float p0, float p1, float p2, float p3, float p4, float p5,
                                                       float p6, float p7, float p8, float p9) {
      return p0 + p1 + p2 + p3 + p4 + p5 + p6 + p7 + p8 + p9;
    });
    threw = false;
    try {
      (void)f10(x, c, c, c, c, c, c, c, c, b);
    } catch (const ufunc::shape_error& e) {
      threw = std::string(e.what()).find("disagree") != std::string::npos;
    }
    check(threw, "a ninth plain operand of a different shape per rank: shape_error on every rank");
    threw = false;
    try {
      (void)ufunc::sum(x, ufunc::axis(comm.rank() == 0 ? 0 : 1));
    } catch (const ufunc::shape_error&) {
      threw = true;
    }
    check(threw, "a reduction over different axes per rank: shape_error on every rank");
    std::vector<ufunc::array<float, Tg>> parts;
    parts.push_back(host_array<Tg>(std::vector<float>(6, 1.f), ufunc::shape{2, 3}));
    if (comm.rank() != 0) parts[0] = host_array<Tg>(std::vector<float>(2, 1.f), ufunc::shape{2, 1});
    threw = false;
    try {
      (void)ufunc::sharded_array<float, Tg>::from_shards(d, std::move(parts));
    } catch (const ufunc::shape_error&) {
      threw = true;
    }
    check(threw, "from_shards with different dims after axis 0 per rank: shape_error on every rank");
  }

  // GPU shards: the partials of a sum meet in one NCCL all-reduce when every
  // rank has its own GPU, else (ranks sharing a GPU, no NCCL) through host memory.
#if defined(UFUNC_TESTING) && defined(UFUNC_BACKEND_CUDA)
  if constexpr (!std::is_same_v<Tg, host>) {
    const long before = ufunc::detail::testing::rank_allreduces();
    const auto ones = ufunc::full<float, Tg>(ufunc::shape{1000, 2}, 1.f, d);
    const auto cols = ufunc::sum(ones, ufunc::axis(0)).to_host();
    check(cols.size() == 2 && cols[0] == 1000.f && cols[1] == 1000.f, "axis-0 sum of ones over the ranks' GPUs");
    const bool nccl = ufunc::have_nccl && mpi_size > 1 && mpi_size <= static_cast<int>(ufunc::devices().size());
    check((ufunc::detail::testing::rank_allreduces() > before) == nccl,
          std::string("the NCCL all-reduce across ranks ") + (nccl ? "not used" : "used") + " with " +
              std::to_string(mpi_size) + " ranks on " + std::to_string(ufunc::devices().size()) + " GPUs");
    // A whole sum's value: the ranks' values in one all-gather, folded on the host (no NCCL).
    const long mid = ufunc::detail::testing::rank_allreduces();
    check(float(ufunc::sum(ones)) == 2000.f, "sum of ones over the ranks' GPUs");
    check(ufunc::detail::testing::rank_allreduces() == mid, "a whole sum's value takes no NCCL all-reduce");
    // A rank that dies inside the NCCL all-reduce: the last rank leaves it (its
    // communicator aborted), every other rank throws communication_error after
    // UFUNC_COLLECTIVE_TIMEOUT seconds instead of waiting for ever; then a new
    // communicator is made and the next sum is right on every rank.
    if (nccl) {
      setenv("UFUNC_COLLECTIVE_TIMEOUT", "3", 1);
      const bool leaver = comm.rank() == mpi_size - 1;
      if (leaver) ufunc::detail::testing::leave_next_allreduce() = true;
      const auto t0 = std::chrono::steady_clock::now();
      bool timed_out = false, nccl_failed = false;
      try {
        (void)ufunc::sum(ones, ufunc::axis(0));
      } catch (const ufunc::communication_error& e) {
        timed_out = std::string(e.what()).find("UFUNC_COLLECTIVE_TIMEOUT") != std::string::npos;
      } catch (const ufunc::nccl_error&) {
        nccl_failed = true;  // NCCL saw the peer go (ncclCommGetAsyncError): also bounded
      }
      const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      unsetenv("UFUNC_COLLECTIVE_TIMEOUT");
      if (comm.rank() == 0)
        std::printf("test_mpi: the all-reduce whose last rank left: rank 0 %s after %.2f s\n",
                    timed_out ? "timed out" : nccl_failed ? "got NCCL's error" : "returned", waited);
      if (leaver) {
        check(!timed_out && !nccl_failed, "the rank that left does not wait");
      } else {
        check(timed_out || nccl_failed, "a rank whose peer died in the all-reduce throws (communication_error or nccl_error)");
        check(waited < 60 && (!timed_out || waited >= 2.5),
              "... within a bounded time (UFUNC_COLLECTIVE_TIMEOUT = 3 s), waited " + std::to_string(waited));
      }
      const long again = ufunc::detail::testing::rank_allreduces();
      const auto cols2 = ufunc::sum(ones, ufunc::axis(0)).to_host();
      check(cols2.size() == 2 && cols2[0] == 1000.f && cols2[1] == 1000.f, "the next sum, over a new NCCL communicator");
      check(ufunc::detail::testing::rank_allreduces() > again, "... through NCCL");
    }
  }
#endif

  if constexpr (std::is_same_v<Tg, host>) throwing_case(d);
  ring_case<Tg>(d);

}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int failed_all = 0;
  {
    const ufunc::communicator comm = ufunc::mpi_communicator(MPI_COMM_WORLD);
    rank_ = comm.rank();
    int mpi_rank = 0, mpi_size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &mpi_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mpi_size);
    check(comm.rank() == mpi_rank && comm.size() == mpi_size, "communicator rank and size");
    const auto ranks = comm.allgather(comm.rank() * 10 + 1);
    bool ag = static_cast<int>(ranks.size()) == mpi_size;
    for (int r = 0; ag && r < mpi_size; ++r) ag = ranks[static_cast<std::size_t>(r)] == r * 10 + 1;
    check(ag, "allgather");
    const ufunc::device_set d(comm);
    check(d.spans_processes() && d.ranks() == mpi_size && d.rank() == mpi_rank && d.size() == 1, "device_set(comm)");

    run_all<host>(comm, ufunc::device_set(comm, 0));
#if defined(UFUNC_BACKEND_CUDA)
    if (ufunc::device_available()) {  // (a CUDA build on a machine without a GPU: host shards only)
      const ufunc::device_set gpus(comm);  // local rank modulo the GPUs
      // The rank's GPU made current, as MPI + CUDA programs do: the test's
      // plain arrays (and shard(0).to_host()) are then on the shard's device.
      cudaSetDevice(gpus[0]);
      run_all<ufunc::target::device>(comm, gpus);
    }
#endif

    MPI_Allreduce(&failures, &failed_all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank_ == 0)
      std::printf("test_mpi: %d ranks, %s (%d failures over all ranks)\n", mpi_size, failed_all ? "FAILED" : "ok",
                  failed_all);
  }
  MPI_Finalize();
  return failed_all ? 1 : 0;
}
