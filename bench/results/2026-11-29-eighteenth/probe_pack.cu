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

int main(int argc, char** argv) {
  int sms = 0; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const int rounds = argc > 1 ? atoi(argv[1]) : 3;
  double* dout; cudaMalloc(&dout, 64);
  std::mt19937 rng(12345); std::normal_distribution<float> nd(0.f, 1.f);
  {
    const long long n = 1LL << 28;
    std::vector<__nv_bfloat16> h(n); double ref = 0;
    for (auto& v : h) { v = __float2bfloat16(nd(rng)); ref += __bfloat162float(v); }
    auto x = ufunc::to_device(h); auto s = ufunc::empty<float>(ufunc::shape{});
    const __nv_bfloat16* p = x.data();
    bench_reference read(bench_pass::read, 2.0 * n, sms);
    auto a = mk(p16_cur{p, n}, n / 16, dout); auto b = mk(p16_word{p, n}, n / 16, dout + 1);
    auto c = mk(pbf_full<2>{reinterpret_cast<const uint4*>(p)}, n / 16, dout + 2);
    auto d = mk(pbf_full<4>{reinterpret_cast<const uint4*>(p)}, n / 32, dout + 3);
    auto e = mk(p16_full_cur{p}, n / 16, dout + 4);
    auto f1 = mk(pbf_full<1>{reinterpret_cast<const uint4*>(p)}, n / 8, dout + 5);
    for (int r = 0; r < rounds; ++r) {
      auto t = time_interleaved_ms({[&] { read(); }, [&] { ufunc::sum(x, ufunc::out(s)); }, [&] { a(); }, [&] { b(); }, [&] { c(); }, [&] { d(); }, [&] { e(); }, [&] { f1(); }}, 25, 1);
      std::printf("bf16 2^28 / read: lib %.3f  cub+cur %.3f  word %.3f  full32 %.3f  full64 %.3f  full32cur %.3f  full16 %.3f  (read %.4f ms)\n",
                  t[0] / t[1], t[0] / t[2], t[0] / t[3], t[0] / t[4], t[0] / t[5], t[0] / t[6], t[0] / t[7], t[0]);
    }
    std::printf("bf16 check: ref %.6f lib %.6f cur %.6f word %.6f full32 %.6f full64 %.6f full32cur %.6f full16 %.6f\n", ref, (double)s.to_host()[0], a.get(), b.get(), c.get(), d.get(), e.get(), f1.get());
  }
  {
    const long long n = 1LL << 27;
    std::vector<float> h(n), g(n); double ref = 0, dref = 0;
    for (long long i = 0; i < n; ++i) { h[i] = nd(rng); g[i] = nd(rng); ref += h[i]; dref += (double)h[i] * g[i]; }
    auto x = ufunc::to_device(h); auto y = ufunc::to_device(g); auto s = ufunc::empty<float>(ufunc::shape{});
    auto s2 = ufunc::empty<float>(ufunc::shape{});
    bench_reference read(bench_pass::read, 4.0 * n, sms), read2(bench_pass::read, 8.0 * n, sms);
    void* tmp = nullptr; size_t tb = 0; float* fo; cudaMalloc(&fo, 16);
    cub::DeviceReduce::Sum(nullptr, tb, x.data(), fo, (int)n, 0); cudaMalloc(&tmp, tb);
    auto c = mk(pf_full<2>{reinterpret_cast<const float4*>(x.data())}, n / 8, dout + 6);
    auto d = mk(pf_full<4>{reinterpret_cast<const float4*>(x.data())}, n / 16, dout + 7);
    auto e = mk(pdot_full<2>{reinterpret_cast<const float4*>(x.data()), reinterpret_cast<const float4*>(y.data())}, n / 8, dout + 8);
    auto f = mk(pdot_full<1>{reinterpret_cast<const float4*>(x.data()), reinterpret_cast<const float4*>(y.data())}, n / 4, dout + 9);
    const auto dot_e = ufunc::lazy(x) * y;
    for (int r = 0; r < rounds; ++r) {
      auto t = time_interleaved_ms({[&] { read(); }, [&] { ufunc::sum(x, ufunc::out(s)); }, [&] { cub::DeviceReduce::Sum(tmp, tb, x.data(), fo, (int)n, 0); }, [&] { c(); }, [&] { d(); },
                                    [&] { read2(); }, [&] { ufunc::sum(dot_e, ufunc::out(s2)); }, [&] { e(); }, [&] { f(); }}, 25, 1);
      std::printf("f32 2^27 / read: lib %.3f  CUB Sum %.3f  full32 %.3f  full64 %.3f | lib/CUB %.3f | dot / read2: lib %.3f  full32x2 %.3f  full16x2 %.3f\n",
                  t[0] / t[1], t[0] / t[2], t[0] / t[3], t[0] / t[4], t[2] / t[1], t[5] / t[6], t[5] / t[7], t[5] / t[8]);
    }
    std::printf("f32 check: ref %.6f lib %.6f full32 %.6f full64 %.6f | dot ref %.6f lib %.6f full32 %.6f full16 %.6f\n", ref, (double)s.to_host()[0], c.get(), d.get(), dref, (double)s2.to_host()[0], e.get(), f.get());
  }
  return 0;
}
