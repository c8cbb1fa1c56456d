// Probe (issue 36, H200 reduction rows): whole sums through CUB TransformReduce
// over packs of 32 or 64 bytes, with the pack's conversions and its branch for a
// short last pack varied; bf16 and float sums and a float dot, each against a
// read kernel over the same bytes, interleaved. Not part of the library.
#include <ufunc/ufunc.hpp>
#include <cub/device/device_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <cuda_bf16.h>
#include <cstdio>
#include <random>
#include <vector>
#include "../../bench_util.hpp"
#include "../../bench_copy.cuh"

struct plusd { __host__ __device__ double operator()(double a, double b) const { return a + b; } };

// As pack_tree_sum<bf16> today: element conversion, branch for the last pack.
struct p16_cur {
  const __nv_bfloat16* p; long long n;
  __device__ double operator()(int i) const {
    const long long b = (long long)i * 16;
    float a[16];
    if (b + 16 <= n) {
      uint4 raw[2]; const uint4* q = reinterpret_cast<const uint4*>(p + b);
      raw[0] = q[0]; raw[1] = q[1];
      const __nv_bfloat16* v = reinterpret_cast<const __nv_bfloat16*>(raw);
#pragma unroll
      for (int k = 0; k < 16; ++k) a[k] = __bfloat162float(v[k]);
    } else {
#pragma unroll
      for (int k = 0; k < 16; ++k) a[k] = b + k < n ? __bfloat162float(p[b + k]) : 0.f;
    }
#pragma unroll
    for (int h = 8; h >= 1; h /= 2)
#pragma unroll
      for (int k = 0; k < h; ++k) a[k] = a[k] + a[k + h];
    return a[0];
  }
};
__device__ __forceinline__ void words16(const unsigned* w, int nw, float* a) {
  for (int k = 0; k < nw; ++k) { a[2 * k] = __uint_as_float(w[k] << 16); a[2 * k + 1] = __uint_as_float(w[k] & 0xffff0000u); }
}
// Word conversion (shift / mask), the branch kept.
struct p16_word {
  const __nv_bfloat16* p; long long n;
  __device__ double operator()(int i) const {
    const long long b = (long long)i * 16;
    float a[16];
    if (b + 16 <= n) {
      uint4 raw[2]; const uint4* q = reinterpret_cast<const uint4*>(p + b);
      raw[0] = q[0]; raw[1] = q[1];
#pragma unroll
      for (int k = 0; k < 8; ++k) { const unsigned w = reinterpret_cast<const unsigned*>(raw)[k];
        a[2 * k] = __uint_as_float(w << 16); a[2 * k + 1] = __uint_as_float(w & 0xffff0000u); }
    } else {
#pragma unroll
      for (int k = 0; k < 16; ++k) a[k] = b + k < n ? __bfloat162float(p[b + k]) : 0.f;
    }
#pragma unroll
    for (int h = 8; h >= 1; h /= 2)
#pragma unroll
      for (int k = 0; k < h; ++k) a[k] = a[k] + a[k + h];
    return a[0];
  }
};
// Full packs only (no branch): W words of 2 bf16 an item.
template <int LOADS>
struct pbf_full {
  const uint4* q;
  __device__ double operator()(int i) const {
    constexpr int E = LOADS * 8;
    uint4 raw[LOADS];
#pragma unroll
    for (int l = 0; l < LOADS; ++l) raw[l] = q[(long long)i * LOADS + l];
    float a[E];
#pragma unroll
    for (int k = 0; k < E / 2; ++k) { const unsigned w = reinterpret_cast<const unsigned*>(raw)[k];
      a[2 * k] = __uint_as_float(w << 16); a[2 * k + 1] = __uint_as_float(w & 0xffff0000u); }
#pragma unroll
    for (int h = E / 2; h >= 1; h /= 2)
#pragma unroll
      for (int k = 0; k < h; ++k) a[k] = a[k] + a[k + h];
    return a[0];
  }
};
// Full packs only, element conversion (the branch's effect alone).
struct p16_full_cur {
  const __nv_bfloat16* p;
  __device__ double operator()(int i) const {
    uint4 raw[2]; const uint4* q = reinterpret_cast<const uint4*>(p) + 2LL * i;
    raw[0] = q[0]; raw[1] = q[1];
    const __nv_bfloat16* v = reinterpret_cast<const __nv_bfloat16*>(raw);
    float a[16];
#pragma unroll
    for (int k = 0; k < 16; ++k) a[k] = __bfloat162float(v[k]);
#pragma unroll
    for (int h = 8; h >= 1; h /= 2)
#pragma unroll
      for (int k = 0; k < h; ++k) a[k] = a[k] + a[k + h];
    return a[0];
  }
};
// float: full packs of 8 (no branch).
template <int LOADS>
struct pf_full {
  const float4* q;
  __device__ double operator()(int i) const {
    constexpr int E = LOADS * 4;
    float a[E];
#pragma unroll
    for (int l = 0; l < LOADS; ++l) { const float4 v = q[(long long)i * LOADS + l]; a[4*l] = v.x; a[4*l+1] = v.y; a[4*l+2] = v.z; a[4*l+3] = v.w; }
#pragma unroll
    for (int h = E / 2; h >= 1; h /= 2)
#pragma unroll
      for (int k = 0; k < h; ++k) a[k] = a[k] + a[k + h];
    return a[0];
  }
};
// 16-byte items, loads through ld.global.nc
struct pbf_nc {
  const uint4* q;
  __device__ double operator()(int i) const {
    const uint4 r = __ldg(q + i);
    const unsigned w[4] = {r.x, r.y, r.z, r.w};
    float a[8];
#pragma unroll
    for (int k = 0; k < 4; ++k) { a[2 * k] = __uint_as_float(w[k] << 16); a[2 * k + 1] = __uint_as_float(w[k] & 0xffff0000u); }
#pragma unroll
    for (int h = 4; h >= 1; h /= 2)
#pragma unroll
      for (int k = 0; k < h; ++k) a[k] = a[k] + a[k + h];
    return a[0];
  }
};
struct pf_nc {
  const float4* q;
  __device__ double operator()(int i) const { const float4 v = __ldg(q + i); return (v.x + v.z) + (v.y + v.w); }
};
struct pdot_nc {
  const float4* x; const float4* y;
  __device__ double operator()(int i) const { const float4 u = __ldg(x + i), v = __ldg(y + i);
    return (u.x * v.x + u.z * v.z) + (u.y * v.y + u.w * v.w); }
};
// float dot: full packs of 8 from each input.
template <int LOADS>
struct pdot_full {
  const float4* x; const float4* y;
  __device__ double operator()(int i) const {
    constexpr int E = LOADS * 4;
    float4 u[LOADS], v[LOADS];
#pragma unroll
    for (int l = 0; l < LOADS; ++l) { u[l] = x[(long long)i * LOADS + l]; v[l] = y[(long long)i * LOADS + l]; }
    float a[E];
#pragma unroll
    for (int l = 0; l < LOADS; ++l) { a[4*l] = u[l].x * v[l].x; a[4*l+1] = u[l].y * v[l].y; a[4*l+2] = u[l].z * v[l].z; a[4*l+3] = u[l].w * v[l].w; }
#pragma unroll
    for (int h = E / 2; h >= 1; h /= 2)
#pragma unroll
      for (int k = 0; k < h; ++k) a[k] = a[k] + a[k + h];
    return a[0];
  }
};

template <class F>
struct cub_run {
  F f; int items; double* out; void* temp = nullptr; size_t bytes = 0;
  cub_run(F f_, int items_, double* o) : f(f_), items(items_), out(o) {
    cub::DeviceReduce::TransformReduce(nullptr, bytes, thrust::counting_iterator<int>(0), out, items, plusd{}, f, 0.0, 0);
    UFUNC_CUDA_CHECK(cudaMalloc(&temp, bytes));
  }
  void operator()() { UFUNC_CUDA_CHECK(cub::DeviceReduce::TransformReduce(temp, bytes, thrust::counting_iterator<int>(0), out, items, plusd{}, f, 0.0, 0)); }
  double get() { double h; cudaMemcpy(&h, out, 8, cudaMemcpyDeviceToHost); return h; }
};
template <class F> cub_run<F> mk(F f, int items, double* o) { return cub_run<F>(f, items, o); }


// float, the old pack: 32 bytes an item, a branch for the short last one
struct pf32_branch {
  const float* p; long long n;
  __device__ double operator()(int i) const {
    const long long b = (long long)i * 8;
    float a[8];
    if (b + 8 <= n) {
      const float4* q = reinterpret_cast<const float4*>(p + b);
      const float4 u = q[0], v = q[1];
      a[0] = u.x; a[1] = u.y; a[2] = u.z; a[3] = u.w; a[4] = v.x; a[5] = v.y; a[6] = v.z; a[7] = v.w;
    } else {
#pragma unroll
      for (int k = 0; k < 8; ++k) a[k] = b + k < n ? p[b + k] : 0.f;
    }
#pragma unroll
    for (int h = 4; h >= 1; h /= 2)
#pragma unroll
      for (int k = 0; k < h; ++k) a[k] = a[k] + a[k + h];
    return a[0];
  }
};
double time_sync_call_us(const std::function<void()>& fn, int calls = 200, int batches = 15) {
  for (int i = 0; i < calls; ++i) fn();
  std::vector<double> t;
  for (int b = 0; b < batches; ++b) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) fn();
    const auto t1 = std::chrono::steady_clock::now();
    t.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / calls);
  }
  return median(t);
}
int main() {
  double* dout; cudaMalloc(&dout, 4096);
  std::mt19937 rng(7); std::normal_distribution<float> nd(0.f, 1.f);
  for (long long n : {1LL << 16, 1LL << 20, 1LL << 24}) {
    std::vector<float> h(n); for (auto& v : h) v = nd(rng);
    auto x = ufunc::to_device(h); auto r = ufunc::empty<float>(ufunc::shape{});
    void* tmp = nullptr; size_t tb = 0; float* fo; cudaMalloc(&fo, 16);
    cub::DeviceReduce::Sum(nullptr, tb, x.data(), fo, (int)n, 0); cudaMalloc(&tmp, tb);
    auto a = mk(pf32_branch{x.data(), n}, n / 8, dout);
    auto b = mk(pf_full<1>{reinterpret_cast<const float4*>(x.data())}, n / 4, dout + 1);
    auto c = mk(pf_full<2>{reinterpret_cast<const float4*>(x.data())}, n / 8, dout + 2);
    auto t = time_interleaved_ms({[&] { cub::DeviceReduce::Sum(tmp, tb, x.data(), fo, (int)n, 0); }, [&] { ufunc::sum(x, ufunc::out(r)); }, [&] { a(); }, [&] { b(); }, [&] { c(); }}, 25, 20);
    volatile float sink = 0;
    const double host_us = time_sync_call_us([&] { sink = sink + ufunc::sum(x); });
    double* pin; cudaMallocHost(&pin, 64);
    auto sync_of = [&](auto& k) { return time_sync_call_us([&] { k(); cudaMemcpyAsync(pin, k.out, 8, cudaMemcpyDeviceToHost, 0); cudaStreamSynchronize(0); }); };
    const double ha = sync_of(a), hb = sync_of(b);
    const double hcub = time_sync_call_us([&] { cub::DeviceReduce::Sum(tmp, tb, x.data(), fo, (int)n, 0); cudaMemcpyAsync(pin, fo, 4, cudaMemcpyDeviceToHost, 0); cudaStreamSynchronize(0); });
    std::printf("n 2^%d device us: CUB Sum %.2f  lib %.2f  old32branch %.2f  full16 %.2f  full32 %.2f | to host us: lib %.2f  CUB %.2f  old32branch %.2f  full16 %.2f\n", (int)std::log2((double)n),
                1e3 * t[0], 1e3 * t[1], 1e3 * t[2], 1e3 * t[3], 1e3 * t[4], host_us, hcub, ha, hb);
  }
  return 0;
}
