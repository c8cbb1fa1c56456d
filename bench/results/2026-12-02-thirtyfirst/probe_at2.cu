// Probe (session 31, call 1): can add.at beat the bare atomic kernel? 2^26 random int64
// indices into 2^20 float32 bins. The index and value streams (768 MiB) pass through L2
// and may evict the 4 MiB of bins the atomics hit; loads marked streaming (__ldcs,
// evict-first) may keep the bins resident. Also the parts of the call around the update
// kernel (flag zeroing, staging copy, commit, flag read) timed alone.
#include <ufunc/ufunc.hpp>
#include "bench_util.hpp"
#include <cuda_runtime.h>
#include <cstdio>
#include <random>
using namespace bench;
using ufunc::index_t;
template <int U, bool CS>
__global__ void __launch_bounds__(256) bare_k(float* a, const long long* idx, const float* b, long long m) {
  const long long step = (long long)gridDim.x * blockDim.x;
  for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < m; k += step * U) {
    long long i[U];
    float v[U];
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (k + u * step < m) {
        if (CS) i[u] = __ldcs(idx + k + u * step), v[u] = __ldcs(b + k + u * step);
        else i[u] = idx[k + u * step], v[u] = b[k + u * step];
      }
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (k + u * step < m) atomicAdd(a + i[u], v[u]);
  }
}
// atomics alone: the index a hash of k (no loads): the ceiling of the atomic units
__global__ void __launch_bounds__(256) hashed_k(float* a, long long m, unsigned mask) {
  const long long step = (long long)gridDim.x * blockDim.x;
  for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < m; k += step) {
    unsigned h = (unsigned)k * 2654435761u;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    atomicAdd(a + (h & mask), 1.0f);
  }
}
__global__ void commit_k(float* a, const float* c, const unsigned* bad, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && *bad == 0u) a[i] = c[i];
}
template <int U, bool CS>
void bare(float* a, const long long* idx, const float* b, long long m, int sms, int bps) {
  bare_k<U, CS><<<sms * bps, 256>>>(a, idx, b, m);
}
int main() {
  const auto dev = bench_device("probe_at2", 0);
  if (!dev) return 77;
  const int sms = dev->multiprocessors;
  const index_t bins = index_t(1) << 20, m = index_t(1) << 26;
  std::mt19937_64 g(20261202);
  std::uniform_int_distribution<index_t> pick(0, bins - 1);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<index_t> ih(static_cast<std::size_t>(m));
  std::vector<float> bh(static_cast<std::size_t>(m));
  for (auto& v : ih) v = pick(g);
  for (auto& v : bh) v = u(g);
  const auto idx = ufunc::asarray(ih, ufunc::shape{m});
  const auto b = ufunc::asarray(bh, ufunc::shape{m});
  auto a = ufunc::zeros<float>(ufunc::shape{bins});
  auto a2 = ufunc::zeros<float>(ufunc::shape{bins});
  auto a3 = ufunc::zeros<float>(ufunc::shape{bins});
  auto c = ufunc::zeros<float>(ufunc::shape{bins});
  const auto add = ufunc::vectorize(ufunc::plus{}, "add");
  const auto* ip = reinterpret_cast<const long long*>(idx.data());
  add.at(a, idx, b);
  bare<4, true>(a2.data(), ip, b.data(), m, sms, 8);
  bare<4, false>(a3.data(), ip, b.data(), m, sms, 8);
  {
    const auto x = a.to_host(), y = a2.to_host(), z = a3.to_host();
    double w1 = 0, w2 = 0;
    for (std::size_t i = 0; i < x.size(); ++i)
      w1 = std::max(w1, double(std::fabs(x[i] - y[i]))), w2 = std::max(w2, double(std::fabs(z[i] - y[i])));
    std::printf("largest difference ufunc / streaming kernel %.3g, plain / streaming %.3g\n", w1, w2);
  }
  unsigned* flag = nullptr;
  unsigned* pinned = nullptr;
  cudaMalloc(&flag, 4);
  cudaHostAlloc(&pinned, 4, cudaHostAllocDefault);
  unsigned pageable = 0;
  const auto around = [&](bool pin) {  // the call's steps around the update kernel
    cudaMemsetAsync(flag, 0, 4);
    cudaMemcpyAsync(c.data(), a2.data(), bins * 4, cudaMemcpyDeviceToDevice);
    commit_k<<<(bins + 255) / 256, 256>>>(a3.data(), c.data(), flag, bins);
    cudaMemcpyAsync(pin ? pinned : &pageable, flag, 4, cudaMemcpyDeviceToHost);
    cudaStreamSynchronize(0);
  };
  for (int round = 0; round < 3; ++round) {
    const auto t = time_interleaved_ms({[&] { add.at(a, idx, b); },
                                        [&] { bare<4, false>(a2.data(), ip, b.data(), m, sms, 8); },
                                        [&] { bare<4, true>(a2.data(), ip, b.data(), m, sms, 8); },
                                        [&] { bare<8, true>(a2.data(), ip, b.data(), m, sms, 8); },
                                        [&] { bare<4, true>(a2.data(), ip, b.data(), m, sms, 4); },
                                        [&] { bare<1, false>(a2.data(), ip, b.data(), m, sms, 8); },
                                        [&] { hashed_k<<<sms * 8, 256>>>(a2.data(), m, unsigned(bins - 1)); },
                                        [&] { around(false); },
                                        [&] { around(true); }},
                                       25, 1);
    std::printf(
        "add.at %.4f ms | U4 plain %.4f | U4 ldcs %.4f | U8 ldcs %.4f | U4 ldcs 4/SM %.4f | U1 plain %.4f | hashed "
        "(no loads) %.4f | around, pageable flag %.4f | around, pinned flag %.4f\n",
        t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], t[8]);
  }
  return 0;
}
