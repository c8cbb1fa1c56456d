// Sharded arrays across processes: run under MPI, one process per rank
// (`mpiexec -n 2 ./example_distributed`; `srun -n 8 ./example_distributed` under
// Slurm). Every rank holds one shard of the rows; the Gaussian pdf runs on each
// rank's rows, the sums combine the ranks' partials, and a Gaussian kernel sum of
// 3-D points runs with the x_i sharded and the y_j on every rank. Each rank checks
// the results against a plain loop over the whole data, and the kernel sum against
// the same call on one rank's unsharded points. Host shards here; with
// ufunc::target::device each rank's shard is on its GPU (local rank modulo
// the GPUs; docs/multi_gpu.md).
#include <ufunc/mpi.hpp>
#include <ufunc/ufunc.hpp>

#include <cuda/std/array>

#include <cmath>
#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rc = 0;
  {
    using host = ufunc::target::host;
    const ufunc::communicator comm = ufunc::mpi_communicator(MPI_COMM_WORLD);
    const ufunc::device_set ranks(comm);  // one shard per rank

    const ufunc::index_t n = 1 << 20, d = 4;  // n points of d coordinates
    std::vector<float> h(static_cast<std::size_t>(n * d));
    for (std::size_t k = 0; k < h.size(); ++k) h[k] = static_cast<float>(std::sin(0.001 * double(k)));
    const auto pdf = ufunc::vectorize<host>([] UFUNC_HD(float x) { return 0.3989422804f * std::exp(-0.5f * x * x); });

    const auto x = ufunc::shard<host>(h, ufunc::shape{n, d}, ranks);  // each rank keeps its rows
    const auto p = pdf(x);                                            // on each rank's rows
    const float total = ufunc::sum(p);                                // every rank gets it
    const auto columns = ufunc::sum(p, ufunc::axis(0)).to_host();     // (d,), on every rank

    double want = 0, abs_sum = 0;
    std::vector<double> want_col(static_cast<std::size_t>(d), 0.0);
    for (std::size_t k = 0; k < h.size(); ++k) {
      const double v = 0.3989422804 * std::exp(-0.5 * double(h[k]) * h[k]);
      want += v;
      abs_sum += v;
      want_col[k % static_cast<std::size_t>(d)] += v;
    }
    // docs/multi_gpu.md's bound for sharded float sums: (log2(N) + 32 + shards) eps sum|x|
    // (the pdf's own rounding, a few eps of each term, is inside it).
    const double eps = 1.1920929e-7, bound = (std::log2(double(h.size())) + 32 + comm.size()) * eps;
    bool ok = std::fabs(total - want) <= bound * abs_sum;
    for (std::size_t j = 0; j < want_col.size(); ++j)
      ok = ok && std::fabs(columns[j] - want_col[j]) <= bound * want_col[j];  // pdf > 0: sum|x| = the sum

    // A kernel sum: points x_i sharded over the ranks, y_j given on every rank.
    using P3 = cuda::std::array<float, 3>;
    const ufunc::index_t nx = 4096, ny = 1024;
    std::vector<float> hx(static_cast<std::size_t>(nx * 3)), hy(static_cast<std::size_t>(ny * 3));
    for (std::size_t k = 0; k < hx.size(); ++k) hx[k] = static_cast<float>(std::sin(0.37 * double(k)));
    for (std::size_t k = 0; k < hy.size(); ++k) hy[k] = static_cast<float>(std::cos(0.53 * double(k)));
    const auto xs = ufunc::shard<host>(hx, ufunc::shape{nx, 1, 3}, ranks);
    const auto y = ufunc::asarray<host>(hy, ufunc::shape{1, ny, 3});
    const auto gauss = ufunc::map_reduce([] UFUNC_HD(P3 a, P3 b) {
      const float dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
      return std::exp(-0.5f * (dx * dx + dy * dy + dz * dz));
    }, ufunc::plus{});
    const auto k = gauss(ufunc::vec<3>(xs), ufunc::vec<3>(y), ufunc::axis(1)).to_host();  // (nx,): every rank's rows
    const auto x1 = ufunc::asarray<host>(hx, ufunc::shape{nx, 1, 3});                  // one rank's unsharded call
    const auto k1 = gauss(ufunc::vec<3>(x1), ufunc::vec<3>(y), ufunc::axis(1)).to_host();
    for (std::size_t i = 0; i < k1.size(); ++i)  // positive terms: a few ulp each, the sums' rounding
      ok = ok && k.size() == k1.size() && std::fabs(k[i] - k1[i]) <= 1e-5 * k1[i];

    const auto all_ok = comm.allgather(static_cast<int>(ok));
    for (int r : all_ok) ok = ok && r;
    if (comm.rank() == 0) {
      std::printf("distributed: %d ranks, rows per rank %s\n", comm.size(), x.sharding().c_str());
      std::printf("  sum of pdf over %lld points: %.6f (loop %.6f), columns %.4f %.4f %.4f %.4f\n",
                  static_cast<long long>(n * d), total, want, columns[0], columns[1], columns[2], columns[3]);
      std::printf("  kernel sum of %lld x %lld 3-D points, x_i sharded: k[0] %.6f (one rank %.6f)\n",
                  static_cast<long long>(nx), static_cast<long long>(ny), k[0], k1[0]);
      std::printf("distributed: %s\n", ok ? "PASSED" : "FAILED");
    }
    rc = ok ? 0 : 1;
  }
  MPI_Finalize();
  return rc;
}
