// Probe (session 17): fill_uniform 2^28 float32's store path against a device copy of
// the same bytes: the library's fill (occupancy wave, grid-stride, st.global.v4) against
// the same loop with streaming stores (st.global.cs), two Philox blocks a thread-iteration,
// and both. Each variant's output is compared with the library's bit for bit.
#include <ufunc/ufunc.hpp>
#include "bench_copy.cuh"
#include "bench_util.hpp"
#include <cstdio>
using namespace bench;
namespace rd = ufunc::random::detail;
template <bool CS, int ILP>
__global__ void __launch_bounds__(256) fill_k(float4* out, unsigned long long blocks, rd::uniform_draw<float> d) {
  const unsigned long long step = (unsigned long long)gridDim.x * blockDim.x * ILP;
  for (unsigned long long j = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; j < blocks; j += step) {
    float v[ILP][4];
#pragma unroll
    for (int u = 0; u < ILP; ++u)
      if (j + u * (step / ILP) < blocks) d.block(j + u * (step / ILP), v[u]);
#pragma unroll
    for (int u = 0; u < ILP; ++u)
      if (j + u * (step / ILP) < blocks) {
        const float4 f = make_float4(v[u][0], v[u][1], v[u][2], v[u][3]);
        if (CS) __stcs(out + j + u * (step / ILP), f);
        else out[j + u * (step / ILP)] = f;
      }
  }
}
template <bool CS, int ILP>
void launch(float* out, unsigned long long n, rd::uniform_draw<float> d, int sms) {
  int per = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, fill_k<CS, ILP>, 256, 0);
  fill_k<CS, ILP><<<per * sms, 256>>>(reinterpret_cast<float4*>(out), n / 4, d);
}
int main() {
  const auto dev = bench_device("probe_fill2", 0);
  if (!dev) return 77;
  const int sms = dev->multiprocessors;
  const ufunc::index_t n = ufunc::index_t(1) << 28;
  const std::uint64_t seed = 20261129;
  auto x = ufunc::empty<float>(ufunc::shape{n});
  auto y = ufunc::empty<float>(ufunc::shape{n});
  const rd::uniform_draw<float> d{seed, 0.0f, 1.0f};
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
  launch<false, 1>(y.data(), n, d, sms); check("plain1");
  launch<true, 1>(y.data(), n, d, sms); check("cs1");
  launch<false, 2>(y.data(), n, d, sms); check("plain2");
  launch<true, 2>(y.data(), n, d, sms); check("cs2");
  launch<true, 4>(y.data(), n, d, sms); check("cs4");
  if (!ok) return 1;
  const bench_reference copy(bench_pass::copy, 4.0 * double(n), sms);
  for (int round = 0; round < 3; ++round) {
    const auto t = time_interleaved_ms({[&] { copy(); }, [&] { ufunc::random::fill_uniform(x.view(), seed); },
                                        [&] { launch<false, 1>(y.data(), n, d, sms); },
                                        [&] { launch<true, 1>(y.data(), n, d, sms); },
                                        [&] { launch<false, 2>(y.data(), n, d, sms); },
                                        [&] { launch<true, 2>(y.data(), n, d, sms); },
                                        [&] { launch<true, 4>(y.data(), n, d, sms); }},
                                       25, 1);
    std::printf("copy %.4f | lib %.4f (%.3f) plain1 %.4f (%.3f) cs1 %.4f (%.3f) plain2 %.4f (%.3f) cs2 %.4f (%.3f) cs4 %.4f (%.3f)\n",
                t[0], t[1], t[0] / t[1], t[2], t[0] / t[2], t[3], t[0] / t[3], t[4], t[0] / t[4], t[5], t[0] / t[5],
                t[6], t[0] / t[6]);
  }
  return 0;
}
