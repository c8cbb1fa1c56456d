// Probe (session 17, call 2): why fill_uniform (0.83 of a copy) trails a dedicated kernel
// with the same draws and stores (0.94, probe_fill2.cu): the library's fill_fn body through
// parallel_for with the occupancy API's launch (the library), with 256/512/1024-thread
// blocks at the occupancy grid, and the dedicated kernel.
#include <ufunc/ufunc.hpp>
#include "bench_copy.cuh"
#include "bench_util.hpp"
#include <cstdio>
using namespace bench;
namespace rd = ufunc::random::detail;
using FF = rd::fill_fn<float, rd::uniform_draw<float>>;
__global__ void __launch_bounds__(256) plain_k(float4* out, unsigned long long blocks, rd::uniform_draw<float> d) {
  const unsigned long long step = (unsigned long long)gridDim.x * blockDim.x;
  for (unsigned long long j = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; j < blocks; j += step) {
    float v[4];
    d.block(j, v);
    out[j] = make_float4(v[0], v[1], v[2], v[3]);
  }
}
int main() {
  const auto dev = bench_device("probe_fill3", 0);
  if (!dev) return 77;
  const int sms = dev->multiprocessors;
  const ufunc::index_t n = ufunc::index_t(1) << 28;
  const std::uint64_t seed = 20261129;
  auto x = ufunc::empty<float>(ufunc::shape{n});
  auto y = ufunc::empty<float>(ufunc::shape{n});
  const rd::uniform_draw<float> d{seed, 0.0f, 1.0f};
  const FF f{y.data(), 0, std::uint64_t(n), d};
  const auto k = ufunc::detail::parallel_for_kernel<1, FF>;
  int occ256 = 0, occ512 = 0, occ1024 = 0, minGrid = 0, blk = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ256, k, 256, 0);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ512, k, 512, 0);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ1024, k, 1024, 0);
  cudaOccupancyMaxPotentialBlockSize(&minGrid, &blk, k, 0, 0);
  cudaFuncAttributes at{};
  cudaFuncGetAttributes(&at, k);
  std::printf("parallel_for_kernel<1, fill_fn>: %d registers; occupancy API block %d grid %d; blocks/SM at 256/512/1024: %d %d %d\n",
              at.numRegs, blk, minGrid, occ256, occ512, occ1024);
  int occp = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occp, plain_k, 256, 0);
  cudaFuncGetAttributes(&at, plain_k);
  std::printf("plain kernel: %d registers, %d blocks/SM at 256\n", at.numRegs, occp);
  const ufunc::index_t nb = n / 4;
  ufunc::random::fill_uniform(x.view(), seed);
  const auto ref = x.to_host();
  bool ok = true;
  const auto check = [&](const char* name) {
    cudaDeviceSynchronize();
    const auto b = y.to_host();
    long bad = 0;
    for (std::size_t i = 0; i < b.size(); ++i) bad += b[i] != ref[i];
    std::printf("check %s: %ld differ %s\n", name, bad, bad ? "FAILED" : "ok");
    ok = ok && !bad;
    cudaMemset(y.data(), 0, 4 * n);
  };
  const auto run = [&](int threads, int per) { ufunc::parallel_for(nb, f, ufunc::launch_config(per * sms, threads)); };
  run(256, occ256); check("256");
  run(512, occ512); check("512");
  run(1024, occ1024); check("1024");
  plain_k<<<occp * sms, 256>>>(reinterpret_cast<float4*>(y.data()), nb, d); check("plain");
  if (!ok) return 1;
  const bench_reference copy(bench_pass::copy, 4.0 * double(n), sms);
  for (int round = 0; round < 3; ++round) {
    const auto t = time_interleaved_ms({[&] { copy(); }, [&] { ufunc::random::fill_uniform(x.view(), seed); },
                                        [&] { run(256, occ256); }, [&] { run(512, occ512); },
                                        [&] { run(1024, occ1024); },
                                        [&] { plain_k<<<occp * sms, 256>>>(reinterpret_cast<float4*>(y.data()), nb, d); }},
                                       25, 1);
    std::printf("copy %.4f | fill_uniform %.4f (%.3f) | fill_fn 256 %.4f (%.3f) 512 %.4f (%.3f) 1024 %.4f (%.3f) | plain %.4f (%.3f)\n",
                t[0], t[1], t[0] / t[1], t[2], t[0] / t[2], t[3], t[0] / t[3], t[4], t[0] / t[4], t[5], t[0] / t[5]);
  }
  return 0;
}
