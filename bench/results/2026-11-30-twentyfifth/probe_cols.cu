// Column sums of an (8192, 8192) float matrix (axis 0) on the H200: the
// library's call against standalone forms of its column kernel, each against
// the read kernel of the same bytes, interleaved (read time / variant time).
// Variants: the library's shape (16 x 32 threads, 4 floats a thread, rounds of
// U rows, the next round's loads issued before the fold) with L2 prefetches a
// few rounds ahead; U = 16 unpipelined; 1,024-thread blocks; and rounds staged
// through shared memory with cp.async (S stages, no registers held by loads).
#include <ufunc/ufunc.hpp>

#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "../../bench_copy.cuh"
#include "../../bench_util.hpp"

namespace {
struct plus_f {
  UFUNC_HD float operator()(float a, float b) const { return a + b; }
};

__device__ __forceinline__ void pf_l2(const void* p) { asm volatile("prefetch.global.L2 [%0];" ::"l"(p)); }

// BX x BY threads; thread (tx, ty) sums columns [4 o, 4 o + 4) over its run of rows.
template <int BX, int BY, int U, int PF, bool DB>
__global__ void __launch_bounds__(BX * BY) cols_reg(const float4* __restrict__ x, float* out, int K4, int R) {
  __shared__ float4 sh[BX * BY];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int o = blockIdx.x * BX + tx;
  const int run = (R + BY - 1) / BY;
  const int a = ty * run, e = min(a + run, R);
  float4 acc = make_float4(0, 0, 0, 0);
  auto add = [&](float4 v) { acc.x += v.x, acc.y += v.y, acc.z += v.z, acc.w += v.w; };
  const float4* col = x + o;
  int r = a;
  if (DB) {
    if (r + U <= e) {
      float4 v[U];
#pragma unroll
      for (int u = 0; u < U; ++u) v[u] = __ldg(col + (long long)(r + u) * K4);
      for (;;) {
        const int rn = r + U;
        const bool more = rn + U <= e;
        float4 w[U];
        if (more) {
#pragma unroll
          for (int u = 0; u < U; ++u) w[u] = __ldg(col + (long long)(rn + u) * K4);
          if (PF > 0 && rn + (PF + 1) * U <= e)
#pragma unroll
            for (int u = 0; u < U; ++u) pf_l2(col + (long long)(rn + PF * U + u) * K4);
        }
#pragma unroll
        for (int u = 0; u < U; ++u) add(v[u]);
        r = rn;
        if (!more) break;
#pragma unroll
        for (int u = 0; u < U; ++u) v[u] = w[u];
      }
    }
  } else {
    for (; r + U <= e; r += U) {
      float4 v[U];
#pragma unroll
      for (int u = 0; u < U; ++u) v[u] = __ldg(col + (long long)(r + u) * K4);
      if (PF > 0 && r + (PF + 1) * U <= e)
#pragma unroll
        for (int u = 0; u < U; ++u) pf_l2(col + (long long)(r + PF * U + u) * K4);
#pragma unroll
      for (int u = 0; u < U; ++u) add(v[u]);
    }
  }
  for (; r < e; ++r) add(__ldg(col + (long long)r * K4));
  sh[ty * BX + tx] = acc;
  for (int step = 1; step < BY; step *= 2) {
    __syncthreads();
    if (ty % (2 * step) == 0 && ty + step < BY) {
      float4 b = sh[(ty + step) * BX + tx];
      float4& m = sh[ty * BX + tx];
      m.x += b.x, m.y += b.y, m.z += b.z, m.w += b.w;
    }
  }
  if (ty == 0) reinterpret_cast<float4*>(out)[o] = sh[tx];
}

__device__ __forceinline__ void cp16(void* s, const void* g) {
  const unsigned sa = static_cast<unsigned>(__cvta_generic_to_shared(s));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(sa), "l"(g));
}
__device__ __forceinline__ void cp_commit() { asm volatile("cp.async.commit_group;"); }
template <int N>
__device__ __forceinline__ void cp_wait() { asm volatile("cp.async.wait_group %0;" ::"n"(N)); }

// Stages of U rows a thread through shared memory (each thread copies and reads
// only its own slots: no barrier until the combination).
template <int BX, int BY, int U, int S>
__global__ void __launch_bounds__(BX * BY) cols_async(const float4* __restrict__ x, float* out, int K4, int R) {
  extern __shared__ float4 stage[];  // [S][U][BX * BY]
  constexpr int T = BX * BY;
  const int tx = threadIdx.x, ty = threadIdx.y, t = ty * BX + tx;
  const int o = blockIdx.x * BX + tx;
  const int run = (R + BY - 1) / BY;
  const int a = ty * run, e = min(a + run, R);
  const int rounds = (e - a) / U;
  const float4* col = x + o;
  auto issue = [&](int k) {
    if (k < rounds) {
      float4* s = stage + (k % S) * U * T;
#pragma unroll
      for (int u = 0; u < U; ++u) cp16(s + u * T + t, col + (long long)(a + k * U + u) * K4);
    }
    cp_commit();
  };
#pragma unroll
  for (int k = 0; k < S - 1; ++k) issue(k);
  float4 acc = make_float4(0, 0, 0, 0);
  for (int k = 0; k < rounds; ++k) {
    issue(k + S - 1);
    cp_wait<S - 1>();
    const float4* s = stage + (k % S) * U * T;
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const float4 v = s[u * T + t];
      acc.x += v.x, acc.y += v.y, acc.z += v.z, acc.w += v.w;
    }
  }
  cp_wait<0>();
  for (int r = a + rounds * U; r < e; ++r) {
    const float4 v = __ldg(col + (long long)r * K4);
    acc.x += v.x, acc.y += v.y, acc.z += v.z, acc.w += v.w;
  }
  __syncthreads();
  float4* sh = stage;
  sh[t] = acc;
  for (int step = 1; step < BY; step *= 2) {
    __syncthreads();
    if (ty % (2 * step) == 0 && ty + step < BY) {
      float4 b = sh[(ty + step) * BX + tx];
      float4& m = sh[t];
      m.x += b.x, m.y += b.y, m.z += b.z, m.w += b.w;
    }
  }
  if (ty == 0) reinterpret_cast<float4*>(out)[o] = sh[tx];
}

template <int BX, int BY, int U, int PF, bool DB>
std::function<void()> reg(const float* x, float* out, int K, int R) {
  return [=] {
    cols_reg<BX, BY, U, PF, DB><<<K / 4 / BX, dim3(BX, BY)>>>(reinterpret_cast<const float4*>(x), out, K / 4, R);
  };
}
template <int BX, int BY, int U, int S>
std::function<void()> async(const float* x, float* out, int K, int R) {
  const int smem = S * U * BX * BY * 16;
  UFUNC_CUDA_CHECK(cudaFuncSetAttribute(cols_async<BX, BY, U, S>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  return [=] {
    cols_async<BX, BY, U, S><<<K / 4 / BX, dim3(BX, BY), smem>>>(reinterpret_cast<const float4*>(x), out, K / 4, R);
  };
}


struct gen_src {
  const float* p;
  long long rstride;  // elements between rows
};

// The library's arithmetic in the standalone shape: WIDE folds each round of U
// rows in float and adds it to double accumulators; I64 forms every load's
// address as p + (o + r * rstride) in 64 bits from a runtime stride.
template <int BX, int BY, int U, bool WIDE, bool I64, bool HINT = false>
__global__ void __launch_bounds__(BX * BY) cols_gen(gen_src src, float* out, long long K, long long R) {
  using A = std::conditional_t<WIDE, double, float>;
  __shared__ A sh[BX * BY * 4];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const long long o = (static_cast<long long>(blockIdx.x) * BX + tx) * 4;
  const long long run = (R + BY - 1) / BY;
  const long long a = ty * run, e = a + run < R ? a + run : R;
  auto load = [&](long long r) {
    if (HINT) {
      float4 f;
      asm("ld.global.nc.L2::256B.v4.f32 {%0,%1,%2,%3}, [%4];"
          : "=f"(f.x), "=f"(f.y), "=f"(f.z), "=f"(f.w)
          : "l"(src.p + (o + r * src.rstride)));
      return f;
    }
    if (I64) return *reinterpret_cast<const float4*>(src.p + (o + r * src.rstride));
    return __ldg(reinterpret_cast<const float4*>(src.p) + (static_cast<int>(o) / 4 + static_cast<int>(r) * static_cast<int>(K / 4)));
  };
  A acc[4];
  {
    const float4 v = load(a);
    acc[0] = v.x, acc[1] = v.y, acc[2] = v.z, acc[3] = v.w;
  }
  auto fold = [&](float4 (&v)[U]) {
    float t[4] = {v[0].x, v[0].y, v[0].z, v[0].w};
#pragma unroll
    for (int u = 1; u < U; ++u) t[0] += v[u].x, t[1] += v[u].y, t[2] += v[u].z, t[3] += v[u].w;
#pragma unroll
    for (int j = 0; j < 4; ++j) acc[j] += static_cast<A>(t[j]);
  };
  long long r = a + 1;
  if (r + U <= e) {
    float4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = load(r + u);
    for (;;) {
      const long long rn = r + U;
      const bool more = rn + U <= e;
      float4 w[U];
      if (more)
#pragma unroll
        for (int u = 0; u < U; ++u) w[u] = load(rn + u);
      fold(v);
      r = rn;
      if (!more) break;
#pragma unroll
      for (int u = 0; u < U; ++u) v[u] = w[u];
    }
  }
  for (; r < e; ++r) {
    const float4 v = load(r);
    acc[0] += v.x, acc[1] += v.y, acc[2] += v.z, acc[3] += v.w;
  }
  A* mine = sh + (ty * BX + tx) * 4;
#pragma unroll
  for (int j = 0; j < 4; ++j) mine[j] = acc[j];
  for (int step = 1; step < BY; step *= 2) {
    __syncthreads();
    if (ty % (2 * step) == 0 && ty + step < BY)
#pragma unroll
      for (int j = 0; j < 4; ++j) mine[j] += mine[step * BX * 4 + j];
  }
  if (ty == 0)
#pragma unroll
    for (int j = 0; j < 4; ++j) out[o + j] = static_cast<float>(mine[j]);
}
template <int BX, int BY, int U, bool WIDE, bool I64, bool HINT = false>
std::function<void()> gen(const float* x, float* out, int K, int R) {
  return [=] { cols_gen<BX, BY, U, WIDE, I64, HINT><<<K / 4 / BX, dim3(BX, BY)>>>(gen_src{x, K}, out, K, R); };
}


__global__ void spin_kernel(long long cycles) {
  const long long t0 = clock64();
  while (clock64() - t0 < cycles) {
  }
}

/// Device time per call of fn with the host ahead of the device (a spin kernel
/// first, so that the calls queue behind it), and host time per call enqueued.
void host_vs_device(const char* name, const std::function<void()>& fn) {
  for (int i = 0; i < 3; ++i) fn();
  UFUNC_CUDA_CHECK(cudaDeviceSynchronize());
  cudaEvent_t e0, e1;
  UFUNC_CUDA_CHECK(cudaEventCreate(&e0));
  UFUNC_CUDA_CHECK(cudaEventCreate(&e1));
  std::vector<double> dev, host;
  for (int rep = 0; rep < 7; ++rep) {
    const int n = 20;
    spin_kernel<<<1, 1>>>(4000000);  // about 2 ms
    UFUNC_CUDA_CHECK(cudaEventRecord(e0));
    const auto h0 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) fn();
    const auto h1 = std::chrono::steady_clock::now();
    UFUNC_CUDA_CHECK(cudaEventRecord(e1));
    UFUNC_CUDA_CHECK(cudaEventSynchronize(e1));
    float ms = 0;
    UFUNC_CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
    dev.push_back(ms * 1e3 / n);
    host.push_back(std::chrono::duration<double, std::micro>(h1 - h0).count() / n);
  }
  std::printf("%-40s device %.1f us a call (host ahead), host %.1f us a call to enqueue\n", name, median(dev),
              median(host));
}
}  // namespace

int main() {
  auto dev = bench_device("probe_cols", 0);
  if (!dev) return 0;
  const int R = 8192, K = 8192;
  std::vector<float> h(std::size_t(R) * K);
  std::mt19937 g(7);
  std::uniform_real_distribution<float> d(-1, 1);
  for (auto& v : h) v = d(g);
  auto A = ufunc::to_device(h, {R, K});
  auto o = ufunc::empty<float>({K});
  std::vector<double> want(K, 0.0);
  for (int i = 0; i < R; ++i)
    for (int k = 0; k < K; ++k) want[k] += h[std::size_t(i) * K + k];
  const double bytes = double(R) * K * 4 + K * 4;
  const bench_reference read(bench_pass::read, bytes, dev->multiprocessors);
  struct variant {
    std::string name;
    std::function<void()> fn;
  };
  const float* x = A.data();
  float* y = o.data();
  const auto userplus = ufunc::reduce(plus_f{}, 0.0f);
  std::vector<variant> vs = {
      {"library ufunc::sum axis 0", [&] { ufunc::sum(A, ufunc::axis(0), ufunc::out(o)); }},
      {"reg 16x32 U8 db", reg<16, 32, 8, 0, true>(x, y, K, R)},
      {"reg 16x32 U8 db pf1", reg<16, 32, 8, 1, true>(x, y, K, R)},
      {"reg 16x32 U8 db pf2", reg<16, 32, 8, 2, true>(x, y, K, R)},
      {"reg 16x32 U8 db pf4", reg<16, 32, 8, 4, true>(x, y, K, R)},
      {"reg 16x32 U16", reg<16, 32, 16, 0, false>(x, y, K, R)},
      {"reg 16x32 U16 pf1", reg<16, 32, 16, 1, false>(x, y, K, R)},
      {"reg 16x64 U4 db", reg<16, 64, 4, 0, true>(x, y, K, R)},
      {"reg 16x64 U8", reg<16, 64, 8, 0, false>(x, y, K, R)},
      {"gen float i32", gen<16, 32, 8, false, false>(x, y, K, R)},
      {"gen double i32", gen<16, 32, 8, true, false>(x, y, K, R)},
      {"gen float i64", gen<16, 32, 8, false, true>(x, y, K, R)},
      {"gen double i64", gen<16, 32, 8, true, true>(x, y, K, R)},
      {"gen double i64 L2::256B", gen<16, 32, 8, true, true, true>(x, y, K, R)},
      {"library, a user's plus (not widened)", [&] { userplus(A, ufunc::axis(0), ufunc::out(o)); }},
      {"async 16x32 U4 S4 (96K)", async<16, 32, 4, 4>(x, y, K, R)},
      {"async 16x32 U2 S8 (112K)", async<16, 32, 2, 8>(x, y, K, R)},
      {"async 16x32 U4 S6 (160K)", async<16, 32, 4, 6>(x, y, K, R)},
      {"async 16x32 U8 S3 (128K)", async<16, 32, 8, 3>(x, y, K, R)},
  };
  bool ok = true;
  for (auto& v : vs) {
    UFUNC_CUDA_CHECK(cudaMemset(y, 0, K * 4));
    v.fn();
    UFUNC_CUDA_CHECK(cudaDeviceSynchronize());
    const auto got = o.to_host();
    int bad = 0;
    for (int k = 0; k < K; ++k)
      if (std::fabs(got[k] - want[k]) > 1e-3) ++bad;
    if (bad) std::printf("CHECK FAILED: %s: %d columns wrong\n", v.name.c_str(), bad), ok = false;
  }
  for (int pass = 0; pass < 2; ++pass)
    for (auto& v : vs) {
      const auto [tr, tv] = time_interleaved_ms([&] { read(); }, v.fn, 15, 10);
      std::printf("pass %d  %-30s read/variant %.3f  (variant %.1f us, %.3f of peak; read %.3f of peak)\n", pass,
                  v.name.c_str(), tr / tv, tv * 1e3, bytes / tv / 1e-3 / dev->peak_bandwidth(),
                  bytes / tr / 1e-3 / dev->peak_bandwidth());
    }
  host_vs_device("library ufunc::sum axis 0", vs[0].fn);
  host_vs_device("reg 16x32 U8 db", vs[1].fn);
  host_vs_device("read kernel", [&] { read(); });
  {
    auto Y = ufunc::to_device(h, {R, K});
    const auto e2 = ufunc::lazy(A) * Y;
    host_vs_device("sum(lazy(X) * Y) axis 0", [&] { ufunc::sum(e2, ufunc::axis(0), ufunc::out(o)); });
    host_vs_device("sum(lazy(X) * Y) axis 1", [&] { ufunc::sum(e2, ufunc::axis(1), ufunc::out(o)); });
    host_vs_device("sum(X) axis 1", [&] { ufunc::sum(A, ufunc::axis(1), ufunc::out(o)); });
    auto x = ufunc::to_device(h);
    auto xs = ufunc::to_device(std::vector<float>(h.begin(), h.begin() + 1024));
    auto ri = ufunc::empty<ufunc::index_t>(ufunc::shape{});
    auto r0 = ufunc::empty<float>(ufunc::shape{});
    host_vs_device("argmax 2^26", [&] { ufunc::argmax(x, ufunc::out(ri)); });
    host_vs_device("sum 2^26", [&] { ufunc::sum(x, ufunc::out(r0)); });
    host_vs_device("sum 2^10", [&] { ufunc::sum(xs, ufunc::out(r0)); });
  }
  std::printf("probe_cols: %s\n", ok ? "checks passed" : "CHECKS FAILED");
  return ok ? 0 : 1;
}
