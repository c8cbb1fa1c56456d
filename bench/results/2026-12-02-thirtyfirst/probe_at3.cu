// Probe (session 31, call 2): the update kernel's loads. probe_at2 (call 1) found the
// atomics alone (hashed indices, no loads) at 0.64 ms against 0.74 with the index and
// value loads, streaming loads no help, 8 loads in flight worse than 4. Here: vector
// loads (4 or 8 consecutive (index, value) pairs a thread: 3 or 6 load instructions for
// 4 or 8 updates instead of 8 or 16), and loads by asynchronous bulk copies into shared
// memory (cuda::memcpy_async, double-buffered), against the strided U = 4 kernel
// (ufunc's today) and add.at itself.
#include <ufunc/ufunc.hpp>
#include "bench_util.hpp"
#include <cooperative_groups.h>
#include <cuda/barrier>
#include <cuda_runtime.h>
#include <cstdio>
#include <random>
using namespace bench;
using ufunc::index_t;
namespace cg = cooperative_groups;
__global__ void __launch_bounds__(256) strided4_k(float* a, const long long* idx, const float* b, long long m) {
  const long long step = (long long)gridDim.x * blockDim.x;
  for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < m; k += step * 4) {
    long long i[4];
    float v[4];
#pragma unroll
    for (int u = 0; u < 4; ++u)
      if (k + u * step < m) i[u] = idx[k + u * step], v[u] = b[k + u * step];
#pragma unroll
    for (int u = 0; u < 4; ++u)
      if (k + u * step < m) atomicAdd(a + i[u], v[u]);
  }
}
// V consecutive pairs a thread (m a multiple of V here; pointers 16-byte aligned)
template <int V>
__global__ void __launch_bounds__(256) vec_k(float* a, const long long* idx, const float* b, long long m) {
  const long long step = (long long)gridDim.x * blockDim.x;
  for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t * V < m; t += step) {
    long long i[V];
    float v[V];
#pragma unroll
    for (int u = 0; u < V / 2; ++u) {
      const longlong2 q = reinterpret_cast<const longlong2*>(idx + t * V)[u];
      i[2 * u] = q.x, i[2 * u + 1] = q.y;
    }
#pragma unroll
    for (int u = 0; u < V / 4; ++u) {
      const float4 q = reinterpret_cast<const float4*>(b + t * V)[u];
      v[4 * u] = q.x, v[4 * u + 1] = q.y, v[4 * u + 2] = q.z, v[4 * u + 3] = q.w;
    }
#pragma unroll
    for (int u = 0; u < V; ++u) atomicAdd(a + i[u], v[u]);
  }
}
// tiles of T pairs copied asynchronously into shared memory, two stages
template <int T>
__global__ void __launch_bounds__(256) staged_k(float* a, const long long* idx, const float* b, long long m) {
  __shared__ alignas(128) long long si[2][T];
  __shared__ alignas(128) float sb[2][T];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> bar[2];
  auto block = cg::this_thread_block();
  if (block.thread_rank() == 0) init(&bar[0], block.size()), init(&bar[1], block.size());
  block.sync();
  const long long tiles = m / T;
  long long tile = blockIdx.x;
  if (tile < tiles) {
    cuda::memcpy_async(block, si[0], idx + tile * T, cuda::aligned_size_t<16>(T * 8), bar[0]);
    cuda::memcpy_async(block, sb[0], b + tile * T, cuda::aligned_size_t<16>(T * 4), bar[0]);
  }
  for (int s = 0; tile < tiles; tile += gridDim.x, s ^= 1) {
    const long long next = tile + gridDim.x;
    if (next < tiles) {
      cuda::memcpy_async(block, si[s ^ 1], idx + next * T, cuda::aligned_size_t<16>(T * 8), bar[s ^ 1]);
      cuda::memcpy_async(block, sb[s ^ 1], b + next * T, cuda::aligned_size_t<16>(T * 4), bar[s ^ 1]);
    }
    bar[s].arrive_and_wait();
#pragma unroll 4
    for (int j = threadIdx.x; j < T; j += 256) atomicAdd(a + si[s][j], sb[s][j]);
    block.sync();  // stage s is refilled next round
  }
}
template <int U>
__global__ void __launch_bounds__(256) hashed_k(float* a, long long m, unsigned mask) {
  const long long step = (long long)gridDim.x * blockDim.x;
  for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < m; k += step * U) {
#pragma unroll
    for (int u = 0; u < U; ++u) {
      unsigned h = (unsigned)(k + u * step) * 2654435761u;
      h ^= h >> 15;
      h *= 2246822519u;
      h ^= h >> 13;
      atomicAdd(a + (h & mask), 1.0f);
    }
  }
}
__global__ void commit_k(float* a, const float* c, const unsigned* bad, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && *bad == 0u) a[i] = c[i];
}
__global__ void stage_k(float* c, const float* a, unsigned* bad, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) *bad = 0u;
  if (i < n) c[i] = a[i];
}
int main() {
  const auto dev = bench_device("probe_at3", 0);
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
  auto c = ufunc::zeros<float>(ufunc::shape{bins});
  const auto add = ufunc::vectorize(ufunc::plus{}, "add");
  const auto* ip = reinterpret_cast<const long long*>(idx.data());
  const auto check = [&](const char* what, auto launch) {
    cudaMemset(a2.data(), 0, bins * 4);
    launch();
    const auto x = a.to_host(), y = a2.to_host();
    double w = 0;
    for (std::size_t i = 0; i < x.size(); ++i) w = std::max(w, double(std::fabs(x[i] - y[i])));
    std::printf("largest difference ufunc / %s: %.3g (%s)\n", what, w, cudaGetErrorString(cudaGetLastError()));
  };
  add.at(a, idx, b);
  const auto s4 = [&] { strided4_k<<<sms * 8, 256>>>(a2.data(), ip, b.data(), m); };
  const auto v4 = [&] { vec_k<4><<<sms * 8, 256>>>(a2.data(), ip, b.data(), m); };
  const auto v8 = [&] { vec_k<8><<<sms * 8, 256>>>(a2.data(), ip, b.data(), m); };
  const auto v4w = [&] { vec_k<4><<<(m / 4 + 255) / 256, 256>>>(a2.data(), ip, b.data(), m); };
  const auto st = [&] { staged_k<2048><<<sms * 4, 256>>>(a2.data(), ip, b.data(), m); };
  const auto st1 = [&] { staged_k<1024><<<sms * 8, 256>>>(a2.data(), ip, b.data(), m); };
  check("strided U4", s4), check("vector 4", v4), check("vector 8", v8), check("vector 4 one pass", v4w);
  check("staged 2048", st), check("staged 1024", st1);
  unsigned* flag = nullptr;
  unsigned* pinned = nullptr;
  cudaMalloc(&flag, 4);
  cudaHostAlloc(&pinned, 4, cudaHostAllocDefault);
  unsigned pageable = 0;
  const auto around_now = [&] {  // today's steps around the update kernel
    cudaMemsetAsync(flag, 0, 4);
    cudaMemcpyAsync(c.data(), a2.data(), bins * 4, cudaMemcpyDeviceToDevice);
    commit_k<<<(bins + 255) / 256, 256>>>(a2.data(), c.data(), flag, bins);
    cudaMemcpyAsync(&pageable, flag, 4, cudaMemcpyDeviceToHost);
    cudaStreamSynchronize(0);
  };
  const auto around_backup = [&] {  // backup copy with the flag zeroed in it, pinned flag read
    stage_k<<<(bins + 255) / 256, 256>>>(c.data(), a2.data(), flag, bins);
    cudaMemcpyAsync(pinned, flag, 4, cudaMemcpyDeviceToHost);
    cudaStreamSynchronize(0);
  };
  const auto flag_only = [&] {
    cudaMemcpyAsync(pinned, flag, 4, cudaMemcpyDeviceToHost);
    cudaStreamSynchronize(0);
  };
  for (int round = 0; round < 3; ++round) {
    const auto t = time_interleaved_ms(
        {[&] { add.at(a, idx, b); }, s4, v4, v8, v4w, st, st1,
         [&] { hashed_k<1><<<sms * 8, 256>>>(a2.data(), m, unsigned(bins - 1)); },
         [&] { hashed_k<4><<<sms * 8, 256>>>(a2.data(), m, unsigned(bins - 1)); }, around_now, around_backup, flag_only},
        25, 1);
    std::printf(
        "add.at %.4f ms | strided U4 %.4f | vector 4 %.4f | vector 8 %.4f | vector 4 one pass %.4f | staged 2048 %.4f | "
        "staged 1024 %.4f | hashed U1 %.4f | hashed U4 %.4f | around now %.4f | around backup %.4f | flag only %.4f\n",
        t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], t[8], t[9], t[10], t[11]);
  }
  return 0;
}
