// Probe (session 31, call 4): add.at (2^26 random int64 indices into 2^20 float32 bins)
// against a bare one-update-a-thread atomicAdd kernel (cupyx.scatter_add's kind),
// interleaved; data drawn on the device (ufunc::random) so that a run takes seconds and
// can alternate with the CuPy peer several times in one lease.
#include <ufunc/ufunc.hpp>
#include "bench_util.hpp"
#include <cstdio>
using namespace bench;
using ufunc::index_t;
__global__ void __launch_bounds__(256) one_k(float* a, const long long* idx, const float* b, long long m) {
  const long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (k < m) atomicAdd(a + idx[k], b[k]);
}
int main() {
  const auto dev = bench_device("probe_at4", 0);
  if (!dev) return 77;
  const index_t bins = index_t(1) << 20, m = index_t(1) << 26;
  const auto idx = ufunc::random::integers<std::int64_t>(ufunc::shape{m}, 31, 0, bins);
  const auto b = ufunc::random::uniform<float>(ufunc::shape{m}, 32);
  auto a = ufunc::zeros<float>(ufunc::shape{bins});
  auto a2 = ufunc::zeros<float>(ufunc::shape{bins});
  const auto add = ufunc::vectorize(ufunc::plus{}, "add");
  const auto* ip = reinterpret_cast<const long long*>(idx.data());
  const auto one = [&] { one_k<<<unsigned((m + 255) / 256), 256>>>(a2.data(), ip, b.data(), m); };
  add.at(a, idx, b);
  one();
  {
    const auto x = a.to_host(), y = a2.to_host();
    double w = 0, tot = 0;
    for (std::size_t i = 0; i < x.size(); ++i) w = std::max(w, double(std::fabs(x[i] - y[i]))), tot += x[i];
    std::printf("largest difference ufunc / bare kernel %.3g (sum of bins %.6g, expected about %.6g)\n", w, tot,
                0.5 * double(m));
  }
#ifdef PROBE_PARTS
  // add.at's own pieces, called directly (detail API): its update kernel alone (no
  // check), the copy of a it keeps, a stream synchronize after an empty stream.
  using dev_t = ufunc::target::device;
  using bop_t = ufunc::detail::at_operand<const float, dev_t, true>;
  using upd_t = ufunc::detail::at_update<ufunc::plus, float, std::int64_t, bop_t, dev_t>;
  const index_t step = m / 4;
  const auto av = a2.view();
  const ufunc::array_view<const std::int64_t, dev_t> iv(idx.view());
  const bop_t bop{ufunc::array_view<const float, dev_t>(b.view()), 0.f};
  unsigned* flag = nullptr;  // the updates check their indices, as in the call
  cudaMalloc(&flag, 4);
  cudaMemset(flag, 0, 4);
  const auto kernel = [&] {
    ufunc::parallel_for<dev_t>(static_cast<std::size_t>(step),
                               ufunc::detail::at_update_rounds<4, upd_t>{{ufunc::plus{}, av, iv, bop, flag}, m, step});
  };
  const auto kernel1 = [&] {
    ufunc::parallel_for<dev_t>(static_cast<std::size_t>(m), upd_t{ufunc::plus{}, av, iv, bop, flag});
  };
  auto keep = ufunc::zeros<float>(ufunc::shape{bins});
  const auto copy = [&] {
    ufunc::detail::cast_layout<dev_t, float, float>(keep.data(), ufunc::detail::layout_of(keep.view()), a.data(),
                                                     ufunc::detail::layout_of(a.view()), {});
  };
  const auto sync = [&] { ufunc::synchronize(); };
  const auto memcpy_copy = [&] { cudaMemcpyAsync(keep.data(), a.data(), bins * 4, cudaMemcpyDeviceToDevice, 0); };
  for (int round = 0; round < 3; ++round) {
    const auto t = time_interleaved_ms({[&] { add.at(a, idx, b); }, one, kernel, copy, sync, memcpy_copy, kernel1}, 25, 1);
    std::printf(
        "add.at %.4f ms | one update a thread %.4f ms | call - kernel %.1f us | its update kernel alone %.4f ms | "
        "call - its kernel %.1f us | copy of a (kernel) %.1f us | synchronize %.1f us | cudaMemcpyAsync of a %.1f us | update kernel one a thread %.4f ms\n",
        t[0], t[1], (t[0] - t[1]) * 1e3, t[2], (t[0] - t[2]) * 1e3, t[3] * 1e3, t[4] * 1e3, t[5] * 1e3, t[6]);
  }
#else
  for (int round = 0; round < 3; ++round) {
    const auto t = time_interleaved_ms({[&] { add.at(a, idx, b); }, one}, 25, 1);
    std::printf("add.at %.4f ms | one update a thread %.4f ms | call - kernel %.1f us\n", t[0], t[1],
                (t[0] - t[1]) * 1e3);
  }
#endif
  return 0;
}
