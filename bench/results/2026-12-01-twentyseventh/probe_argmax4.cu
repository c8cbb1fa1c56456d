// argmax of 2^27 floats on the H200 (session 27): the library's call against
// standalone forms of its dense kernel's fold ("reread": each thread keeps its
// best value and the round where it first reached it; only the threads holding
// the block's best read that round again), each block over a contiguous chunk
// (the library's order) or over a grid-stride walk (the read kernel's order:
// the whole grid sweeps the array). Each against the read kernel of the same
// bytes, interleaved; a one-block second pass over the partials, or none
// ("first pass only": how much of the time the second pass costs), or the
// partials reduced in the same kernel: by the last block to finish (a counter
// left at zero by that block), or, in a cooperative launch, by block 0 after
// a grid-wide barrier (the driver's barrier word needs no zeroing).
#include <ufunc/ufunc.hpp>

#include <cfloat>
#include <climits>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <cub/block/block_reduce.cuh>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#include "../../bench_copy.cuh"
#include "../../bench_util.hpp"

namespace {
struct vi {
  float v;
  long long i;
};
__device__ __forceinline__ float maxnan(float a, float b) {
  float r;
  asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}
// a better than b (NaN wins; ties: lower index).
__device__ __forceinline__ bool better(const vi& a, const vi& b) {
  const bool an = a.v != a.v, bn = b.v != b.v;
  if (an || bn) return an && (!bn || a.i < b.i);
  return a.v > b.v || (a.v == b.v && a.i < b.i);
}
struct pick {
  __device__ vi operator()(const vi& a, const vi& b) const { return better(b, a) ? b : a; }
};
__device__ __forceinline__ bool improves(float m, float best) { return best == best && (m != m || m > best); }

template <int B, int U, int UNROLL>
__global__ void __launch_bounds__(B) am_reread(const float4* __restrict__ x, long long n4, long long chunk, vi* part) {
  using brf = cub::BlockReduce<float, B>;
  using bri = cub::BlockReduce<long long, B>;
  __shared__ union {
    typename brf::TempStorage f;
    typename bri::TempStorage i;
  } tmp;
  __shared__ float bestv;
  const long long s0 = blockIdx.x * chunk, s1 = min(s0 + chunk, n4);
  float best = -INFINITY;
  long long bq = -1;  // -1: no slot yet
  bool have = false;
  const long long full = s0 + (s1 - s0) / (U * B) * (U * B);
#pragma unroll UNROLL
  for (long long q = s0 + threadIdx.x; q < full; q += U * B) {
    float4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = __ldg(x + q + u * B);
    float ms[U];
#pragma unroll
    for (int u = 0; u < U; ++u) ms[u] = maxnan(maxnan(v[u].x, v[u].y), maxnan(v[u].z, v[u].w));
#pragma unroll
    for (int h = U / 2; h >= 1; h /= 2)
#pragma unroll
      for (int k = 0; k < h; ++k) ms[k] = maxnan(ms[k], ms[k + h]);
    const bool up = !have || improves(ms[0], best);
    best = up ? ms[0] : best;
    bq = up ? q : bq;
    have = true;
  }
  // The tail (fewer than U B slots): one slot a round.
  for (long long q = full + threadIdx.x; q < s1; q += B) {
    const float4 v = __ldg(x + q);
    const float m = maxnan(maxnan(v.x, v.y), maxnan(v.z, v.w));
    const bool up = !have || improves(m, best);
    best = up ? m : best;
    bq = up ? -2 - q : bq;  // a tail slot: encoded as -2 - q
    have = true;
  }
  struct mx {
    __device__ float operator()(float a, float b) const { return maxnan(a, b); }
  };
  const float bm = brf(tmp.f).Reduce(bq == -1 ? -INFINITY : best, mx{});
  if (threadIdx.x == 0) bestv = bm;
  __syncthreads();
  const float M = bestv;
  long long at = LLONG_MAX;
  if (bq != -1 && (M != M ? best != best : best == M)) {
    const bool tail = bq < -1;
    const long long q0 = tail ? -2 - bq : bq;
    const int cnt = tail ? 1 : U;
    for (int u = cnt - 1; u >= 0; --u) {
      const float4 v = __ldg(x + q0 + u * B);
      const float e[4] = {v.x, v.y, v.z, v.w};
      for (int j = 3; j >= 0; --j)
        if (M != M ? e[j] != e[j] : e[j] == M) at = (q0 + u * B) * 4 + j;
    }
  }
  __syncthreads();
  struct mn {
    __device__ long long operator()(long long a, long long b) const { return a < b ? a : b; }
  };
  const long long ai = bri(tmp.i).Reduce(at, mn{});
  if (threadIdx.x == 0) part[blockIdx.x] = vi{M, ai};
}


template <int B, int U, int UNROLL, int MODE>
__global__ void __launch_bounds__(B, 8) am_last(const float4* __restrict__ x, long long n4, long long chunk, vi* part,
                                              unsigned* count, long long* out) {
  using brf = cub::BlockReduce<float, B>;
  using bri = cub::BlockReduce<long long, B>;
  __shared__ union {
    typename brf::TempStorage f;
    typename bri::TempStorage i;
  } tmp;
  __shared__ float bestv;
  const long long s0 = blockIdx.x * chunk, s1 = min(s0 + chunk, n4);
  float best = -INFINITY;
  long long bq = -1;  // -1: no slot yet
  bool have = false;
  const long long full = s0 + (s1 - s0) / (U * B) * (U * B);
#pragma unroll UNROLL
  for (long long q = s0 + threadIdx.x; q < full; q += U * B) {
    float4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = __ldg(x + q + u * B);
    float ms[U];
#pragma unroll
    for (int u = 0; u < U; ++u) ms[u] = maxnan(maxnan(v[u].x, v[u].y), maxnan(v[u].z, v[u].w));
#pragma unroll
    for (int h = U / 2; h >= 1; h /= 2)
#pragma unroll
      for (int k = 0; k < h; ++k) ms[k] = maxnan(ms[k], ms[k + h]);
    const bool up = !have || improves(ms[0], best);
    best = up ? ms[0] : best;
    bq = up ? q : bq;
    have = true;
  }
  // The tail (fewer than U B slots): one slot a round.
  for (long long q = full + threadIdx.x; q < s1; q += B) {
    const float4 v = __ldg(x + q);
    const float m = maxnan(maxnan(v.x, v.y), maxnan(v.z, v.w));
    const bool up = !have || improves(m, best);
    best = up ? m : best;
    bq = up ? -2 - q : bq;  // a tail slot: encoded as -2 - q
    have = true;
  }
  struct mx {
    __device__ float operator()(float a, float b) const { return maxnan(a, b); }
  };
  const float bm = brf(tmp.f).Reduce(bq == -1 ? -INFINITY : best, mx{});
  if (threadIdx.x == 0) bestv = bm;
  __syncthreads();
  const float M = bestv;
  long long at = LLONG_MAX;
  if (bq != -1 && (M != M ? best != best : best == M)) {
    const bool tail = bq < -1;
    const long long q0 = tail ? -2 - bq : bq;
    const int cnt = tail ? 1 : U;
    for (int u = cnt - 1; u >= 0; --u) {
      const float4 v = __ldg(x + q0 + u * B);
      const float e[4] = {v.x, v.y, v.z, v.w};
      for (int j = 3; j >= 0; --j)
        if (M != M ? e[j] != e[j] : e[j] == M) at = (q0 + u * B) * 4 + j;
    }
  }
  __syncthreads();
  struct mn {
    __device__ long long operator()(long long a, long long b) const { return a < b ? a : b; }
  };
  const long long ai = bri(tmp.i).Reduce(at, mn{});
  // The partials' reduction in the same kernel: by the last block to finish
  // (MODE 0: a counter, left at zero by that block; MODE 2: the same with the
  // gather unrolled), or by block 0 after a grid-wide barrier (MODE 1, a
  // cooperative launch: the driver's barrier needs no zeroing).
  __shared__ bool last;
  if (MODE == 1) {
    if (threadIdx.x == 0) part[blockIdx.x] = vi{M, ai};
    cg::this_grid().sync();
    if (blockIdx.x != 0) return;
  } else {
    if (threadIdx.x == 0) {
      part[blockIdx.x] = vi{M, ai};
      __threadfence();
      last = atomicAdd(count, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
  }
  using brv = cub::BlockReduce<vi, B>;
  __shared__ typename brv::TempStorage tv;
  vi acc{-INFINITY, LLONG_MAX};
  const int G = static_cast<int>(gridDim.x);
  if (MODE == 0) {
    for (int i = threadIdx.x; i < G; i += B) {
      vi p;
      p.v = __ldcg(&part[i].v);
      p.i = __ldcg(&part[i].i);
      acc = pick{}(acc, p);
    }
  } else {
    constexpr int L = 4;  // loads in flight a thread
    for (int base = threadIdx.x; base < G; base += L * B) {
      vi p[L];
#pragma unroll
      for (int u = 0; u < L; ++u) {
        const int i = base + u * B;
        p[u] = vi{-INFINITY, LLONG_MAX};
        if (i < G) p[u].v = __ldcg(&part[i].v), p[u].i = __ldcg(&part[i].i);
      }
#pragma unroll
      for (int u = 0; u < L; ++u) acc = pick{}(acc, p[u]);
    }
  }
  const vi t = brv(tv).Reduce(acc, pick{});
  if (threadIdx.x == 0) {
    *out = t.i;
    if (MODE != 1) *count = 0;  // left at zero for the next call
  }
}

// The reread fold over a grid-stride walk (the read kernel's order: the whole
// grid sweeps the array front to back; slot q + u G B of round q).
template <int B, int U>
__global__ void __launch_bounds__(B) am_stride(const float4* __restrict__ x, long long n4, long long, vi* part) {
  using brf = cub::BlockReduce<float, B>;
  using bri = cub::BlockReduce<long long, B>;
  __shared__ union {
    typename brf::TempStorage f;
    typename bri::TempStorage i;
  } tmp;
  __shared__ float bestv;
  const long long S = static_cast<long long>(gridDim.x) * B;
  float best = -INFINITY;
  long long bq = -1;
  bool have = false;
  long long q = static_cast<long long>(blockIdx.x) * B + threadIdx.x;
  for (; q + (U - 1) * S < n4; q += U * S) {
    float4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = __ldg(x + q + u * S);
    float ms[U];
#pragma unroll
    for (int u = 0; u < U; ++u) ms[u] = maxnan(maxnan(v[u].x, v[u].y), maxnan(v[u].z, v[u].w));
#pragma unroll
    for (int h = U / 2; h >= 1; h /= 2)
#pragma unroll
      for (int k = 0; k < h; ++k) ms[k] = maxnan(ms[k], ms[k + h]);
    const bool up = !have || improves(ms[0], best);
    best = up ? ms[0] : best;
    bq = up ? q : bq;
    have = true;
  }
  for (; q < n4; q += S) {
    const float4 v = __ldg(x + q);
    const float m = maxnan(maxnan(v.x, v.y), maxnan(v.z, v.w));
    const bool up = !have || improves(m, best);
    best = up ? m : best;
    bq = up ? -2 - q : bq;
    have = true;
  }
  struct mx {
    __device__ float operator()(float a, float b) const { return maxnan(a, b); }
  };
  const float bm = brf(tmp.f).Reduce(bq == -1 ? -INFINITY : best, mx{});
  if (threadIdx.x == 0) bestv = bm;
  __syncthreads();
  const float M = bestv;
  long long at = LLONG_MAX;
  if (bq != -1 && (M != M ? best != best : best == M)) {
    const bool tail = bq < -1;
    const long long q0 = tail ? -2 - bq : bq;
    const int cnt = tail ? 1 : U;
    for (int u = cnt - 1; u >= 0; --u) {
      const float4 v = __ldg(x + q0 + u * S);
      const float e[4] = {v.x, v.y, v.z, v.w};
      for (int j = 3; j >= 0; --j)
        if (M != M ? e[j] != e[j] : e[j] == M) at = (q0 + u * S) * 4 + j;
    }
  }
  __syncthreads();
  struct mn {
    __device__ long long operator()(long long a, long long b) const { return a < b ? a : b; }
  };
  const long long ai = bri(tmp.i).Reduce(at, mn{});
  if (threadIdx.x == 0) part[blockIdx.x] = vi{M, ai};
}
__global__ void am_finish(const vi* part, int n, long long* out) {
  using br = cub::BlockReduce<vi, 1024>;
  __shared__ typename br::TempStorage tmp;
  vi a{-INFINITY, LLONG_MAX};
  for (int i = threadIdx.x; i < n; i += 1024) a = pick{}(a, part[i]);
  const vi t = br(tmp).Reduce(a, pick{});
  if (threadIdx.x == 0) *out = t.i;
}

template <class K>
int occupancy(K k, int b) {
  int n = 0;
  UFUNC_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, k, b, 0));
  return n;
}

}  // namespace

int main() {
  auto dev = bench_device("probe_argmax4", 0);
  if (!dev) return 0;
  const int sms = dev->multiprocessors;
  const double peak = dev->peak_bandwidth();
  const long long n = 1LL << 27, n4 = n / 4;
  std::vector<float> h(n);
  std::mt19937 g(5);
  std::normal_distribution<float> d(0, 1);
  for (auto& v : h) v = d(g);
  const long long where = (long long)(g() % n);
  h[where] = 100.f;
  h[where + 12345 < n ? where + 12345 : 0] = 100.f;  // a tie: the first wins
  long long want = 0;
  for (long long i = 1; i < n; ++i)
    if (h[i] > h[want]) want = i;
  const auto X = ufunc::to_device(h);
  auto ri = ufunc::empty<ufunc::index_t>(ufunc::shape{});
  vi* part = nullptr;
  long long* res = nullptr;
  UFUNC_CUDA_CHECK(cudaMalloc(&part, sizeof(vi) * 65536));
  UFUNC_CUDA_CHECK(cudaMalloc(&res, sizeof(long long)));
  const float4* x4 = reinterpret_cast<const float4*>(X.data());
  struct variant {
    std::string name;
    std::function<void()> fn;
    bool checked;
  };
  // blocks_per_sm 0: as many as are resident (one wave).
  auto make = [&](auto kernel, int B, int blocks_per_sm, bool second, const char* name) {
    const int occ = occupancy(kernel, B);
    const int grid = sms * (blocks_per_sm ? blocks_per_sm : occ);
    const long long chunk = (n4 + grid - 1) / grid;
    std::printf("%s: %d blocks an SM resident, grid %d\n", name, occ, grid);
    return variant{name, [=] {
                     kernel<<<grid, B>>>(x4, n4, chunk, part);
                     if (second) am_finish<<<1, 1024>>>(part, grid, res);
                   }, second};
  };
  unsigned* count = nullptr;
  UFUNC_CUDA_CHECK(cudaMalloc(&count, sizeof(unsigned)));
  UFUNC_CUDA_CHECK(cudaMemset(count, 0, sizeof(unsigned)));
  const int occ_last = occupancy(am_last<256, 4, 1, 1>, 256), grid_last = sms * occ_last;
  const long long chunk_last = (n4 + grid_last - 1) / grid_last;
  std::printf("in-kernel finish: %d blocks an SM resident, grid %d\n", occ_last, grid_last);
  auto coop = [=](cudaStream_t st) {
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = dim3(grid_last), cfg.blockDim = dim3(256), cfg.stream = st;
    cudaLaunchAttribute at[1];
    at[0].id = cudaLaunchAttributeCooperative, at[0].val.cooperative = 1;
    cfg.attrs = at, cfg.numAttrs = 1;
    UFUNC_CUDA_CHECK(cudaLaunchKernelEx(&cfg, am_last<256, 4, 1, 1>, x4, n4, chunk_last, part, count, res));
  };
  std::vector<variant> vs = {
      {"library ufunc::argmax", [&] { ufunc::argmax(X, ufunc::out(ri)); }, true},
      make(am_reread<256, 4, 1>, 256, 0, true, "chunked reread 256 U4 + second pass"),
      {"last block finishes, counter", [=] { am_last<256, 4, 1, 0><<<grid_last, 256>>>(x4, n4, chunk_last, part, count, res); }, true},
      {"last block finishes, unrolled gather", [=] { am_last<256, 4, 1, 2><<<grid_last, 256>>>(x4, n4, chunk_last, part, count, res); }, true},
      {"cooperative: grid sync, block 0 finishes", [=] { coop(0); }, true},
      make(am_reread<256, 4, 1>, 256, 0, false, "chunked reread 256 U4, first pass only"),
  };
  // A cooperative launch captured in a graph and replayed.
  {
    cudaStream_t st;
    UFUNC_CUDA_CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    cudaGraph_t gr;
    cudaGraphExec_t ge;
    UFUNC_CUDA_CHECK(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
    coop(st);
    UFUNC_CUDA_CHECK(cudaStreamEndCapture(st, &gr));
    UFUNC_CUDA_CHECK(cudaGraphInstantiate(&ge, gr, 0));
    for (int k = 0; k < 3; ++k) {
      UFUNC_CUDA_CHECK(cudaMemsetAsync(res, 0xff, sizeof(long long), st));
      UFUNC_CUDA_CHECK(cudaGraphLaunch(ge, st));
      long long got = -1;
      UFUNC_CUDA_CHECK(cudaMemcpyAsync(&got, res, sizeof got, cudaMemcpyDeviceToHost, st));
      UFUNC_CUDA_CHECK(cudaStreamSynchronize(st));
      std::printf("graph replay %d of the cooperative kernel: %s\n", k, got == want ? "right" : "WRONG");
    }
  }
  bool ok = true;
  for (auto& v : vs) {
    if (!v.checked) continue;
    UFUNC_CUDA_CHECK(cudaMemset(res, 0xff, sizeof(long long)));
    v.fn();
    UFUNC_CUDA_CHECK(cudaDeviceSynchronize());
    long long got = -1;
    if (v.name.rfind("library", 0) == 0)
      got = ri.to_host()[0];
    else
      UFUNC_CUDA_CHECK(cudaMemcpy(&got, res, sizeof(got), cudaMemcpyDeviceToHost));
    if (got != want) std::printf("CHECK FAILED: %s: %lld, want %lld\n", v.name.c_str(), got, want), ok = false;
  }
  const double bytes = 4.0 * n;
  const bench_reference read(bench_pass::read, bytes, sms);
  for (int pass = 0; pass < 2; ++pass)
    for (auto& v : vs) {
      const auto [tr, tv] = time_interleaved_ms([&] { read(); }, v.fn, 15, 10);
      const auto [tr1, tv1] = time_interleaved_ms([&] { read(); }, v.fn, 25, 1);
      std::printf("pass %d  %-42s read/variant %.3f (%.1f us, %.3f of peak); one call %.3f\n", pass, v.name.c_str(),
                  tr / tv, tv * 1e3, bytes / tv / 1e-3 / peak, tr1 / tv1);
    }
  std::printf("probe_argmax4: %s\n", ok ? "checks passed" : "CHECKS FAILED");
  return ok ? 0 : 1;
}
