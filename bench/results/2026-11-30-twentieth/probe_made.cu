// Probe (session 20; from session 19's probe_lean.cu): the library's made-source whole-sum kernel
// (reduce_made_kernel) against curandGenerateNormal and the lean hand kernel. The variants of
// calls 1-3 (bench/NOTES.md, session 20) were built from working trees with tuning macros
// (UFUNC_MADE_FOLDSLOTS, _MINB, _WAVES) that were not kept.
// Probe (session 19): is a lean whole-sum kernel over lazy normal draws faster than the
// row kernel? sum(lazy_normal<float>(2^30)) through the library, against curandGenerateNormal
// into memory, fill_normal, and a hand kernel: a grid-stride loop over whole Philox blocks
// (normal_draw::block, the fill's body), each block's four values added in float pairs and
// widened into a double, one cub::BlockReduce of doubles a block, partials summed by CUB.
// Grids: G waves of the resident blocks of 256 threads.
#include <ufunc/ufunc.hpp>
#include <cub/block/block_reduce.cuh>
#include <cub/device/device_reduce.cuh>
#include "bench_util.hpp"
#include <curand.h>
#include <cmath>
#include <cstdio>
using namespace bench;
using D = ufunc::random::detail::normal_draw<float>;

template <int B>
__global__ void __launch_bounds__(B) lean_sum(D d, std::uint64_t nblocks, double* part) {
  using BR = cub::BlockReduce<double, B>;
  __shared__ typename BR::TempStorage tmp;
  double acc = 0;
  const std::uint64_t step = std::uint64_t(gridDim.x) * B;
  for (std::uint64_t b = std::uint64_t(blockIdx.x) * B + threadIdx.x; b < nblocks; b += step) {
    float v[4];
    d.block(b, v);
    acc += double((v[0] + v[1]) + (v[2] + v[3]));
  }
  const double t = BR(tmp).Sum(acc);
  if (threadIdx.x == 0) part[blockIdx.x] = t;
}

int main() {
  const auto dev = bench_device("probe_lean", 0);
  if (!dev) return 77;
  const std::uint64_t seed = 20261130;
  const ufunc::index_t big = ufunc::index_t(1) << 30;
  curandGenerator_t gen;
  curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_PHILOX4_32_10);
  curandSetPseudoRandomGeneratorSeed(gen, seed);
  auto buf = ufunc::empty<float>(ufunc::shape{big});
  constexpr int B = 256;
  int per_sm = 0, sms = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, lean_sum<B>, B, 0);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const D d{seed, 0.f, 1.f};
  auto part = ufunc::empty<double>(ufunc::shape{ufunc::index_t(sms) * per_sm * 16});
  auto res = ufunc::empty<double>(ufunc::shape{1});
  std::size_t tb = 0;
  cub::DeviceReduce::Sum(nullptr, tb, part.data(), res.data(), int(part.size()));
  auto tmp = ufunc::empty<unsigned char>(ufunc::shape{ufunc::index_t(tb)});
  auto lean = [&](int waves) {
    const int grid = sms * per_sm * waves;
    lean_sum<B><<<grid, B>>>(d, std::uint64_t(big) / 4, part.data());
    std::size_t b2 = tb;
    cub::DeviceReduce::Sum(tmp.data(), b2, part.data(), res.data(), grid);
    double h = 0;
    cudaMemcpy(&h, res.data(), sizeof h, cudaMemcpyDeviceToHost);
    return h;
  };
  const double lib = ufunc::sum(ufunc::random::lazy_normal<float>(ufunc::shape{big}, seed));
  std::printf("registers/occupancy: %d blocks of %d an SM, %d SMs\n", per_sm, B, sms);
  for (int w : {1, 2, 4, 8}) {
    const double l = lean(w);
    std::printf("check waves %d: lean %.9g library %.9g diff %.3g\n", w, l, lib, std::fabs(l - lib));
  }
  double sink = 0;
  for (int round = 0; round < 5; ++round) {
    const auto t = time_interleaved_ms(
        {[&] { sink += ufunc::sum(ufunc::random::lazy_normal<float>(ufunc::shape{big}, seed)); },
         [&] { curandGenerateNormal(gen, buf.data(), std::size_t(big), 0.f, 1.f); },
         [&] { sink += lean(2); }},
        10, 1);
    std::printf("lib %.3f curand %.3f lean2 %.3f | curand/lib %.3f curand/lean2 %.3f\n", t[0], t[1], t[2], t[1] / t[0], t[1] / t[2]);
  }
  if (sink == 1.5) std::puts("");
  return 0;
}
