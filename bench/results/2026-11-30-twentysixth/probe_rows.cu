// Row sums of a two-leaf expression, sum(lazy(X) * Y, axis 1) over (8192, 8192)
// floats, on the H200: the library's call against standalone forms of its row
// kernel (one block a row, rounds of U 16-byte slots of each leaf, a round's
// products added in float and widened once to a double, cub::BlockReduce), each
// against the read kernel of the same bytes, interleaved. Every library call is
// timed two ways: one call between two events (as bench_lazy and bench_half
// time it) and batches of ten, so the host's latency before the first kernel
// shows as their difference.
#include <ufunc/ufunc.hpp>

#include <cuda_bf16.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <cub/block/block_reduce.cuh>

#include "../../bench_copy.cuh"
#include "../../bench_util.hpp"

namespace {

// Block B reduces rows blockIdx.x, blockIdx.x + gridDim.x, ...; S = 16-byte
// slots a row. ACC: double (the library's widened sum) or float.
template <int B, int U, class ACC>
__global__ void __launch_bounds__(B) rows2(const float4* __restrict__ X, const float4* __restrict__ Y, float* out,
                                            int K, int S) {
  using block_reduce = cub::BlockReduce<ACC, B>;
  __shared__ typename block_reduce::TempStorage tmp;
  for (int row = blockIdx.x; row < K; row += gridDim.x) {
    const float4* x = X + (long long)row * S;
    const float4* y = Y + (long long)row * S;
    ACC acc = 0;
    for (int q = threadIdx.x; q < S; q += U * B) {
      float4 a[U], b[U];
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (q + u * B < S) a[u] = __ldg(x + q + u * B), b[u] = __ldg(y + q + u * B);
      float t = 0;
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (q + u * B < S) t += a[u].x * b[u].x + a[u].y * b[u].y + a[u].z * b[u].z + a[u].w * b[u].w;
      acc += static_cast<ACC>(t);
    }
    const ACC total = block_reduce(tmp).Sum(acc);
    if (threadIdx.x == 0) out[row] = static_cast<float>(total);
    __syncthreads();
  }
}

// Two rows a block: B threads, half the block on each row (rows 2 i, 2 i + 1).
template <int B, int U>
__global__ void __launch_bounds__(B) rows2_pair(const float4* __restrict__ X, const float4* __restrict__ Y, float* out,
                                                int K, int S) {
  constexpr int H = B / 2;
  using block_reduce = cub::BlockReduce<double, B>;
  __shared__ double part[B / 32];
  const int half = threadIdx.x / H, tid = threadIdx.x % H;
  const int row = blockIdx.x * 2 + half;
  const float4* x = X + (long long)row * S;
  const float4* y = Y + (long long)row * S;
  double acc = 0;
  for (int q = tid; q < S; q += U * H) {
    float4 a[U], b[U];
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (q + u * H < S) a[u] = __ldg(x + q + u * H), b[u] = __ldg(y + q + u * H);
    float t = 0;
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (q + u * H < S) t += a[u].x * b[u].x + a[u].y * b[u].y + a[u].z * b[u].z + a[u].w * b[u].w;
    acc += t;
  }
  for (int o = 16; o > 0; o /= 2) acc += __shfl_down_sync(0xffffffffu, acc, o);
  if (threadIdx.x % 32 == 0) part[threadIdx.x / 32] = acc;
  __syncthreads();
  if (tid == 0) {
    double s = 0;
    for (int w = 0; w < H / 32; ++w) s += part[half * (H / 32) + w];
    out[row] = static_cast<float>(s);
  }
}

template <int B, int U, class ACC>
std::function<void()> rows_v(const float* X, const float* Y, float* o, int K, int R, int grid = 0) {
  return [=] {
    rows2<B, U, ACC><<<grid ? grid : K, B>>>(reinterpret_cast<const float4*>(X), reinterpret_cast<const float4*>(Y), o,
                                             K, R / 4);
  };
}
template <int B, int U, class ACC>
int resident(int sms) {
  int n = 0;
  UFUNC_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, rows2<B, U, ACC>, B, 0));
  std::printf("rows2<%d, %d, %s>: %d blocks an SM\n", B, U, sizeof(ACC) == 8 ? "double" : "float", n);
  return n * sms;
}
template <int B, int U>
std::function<void()> pair(const float* X, const float* Y, float* o, int K, int R) {
  return [=] {
    rows2_pair<B, U><<<K / 2, B>>>(reinterpret_cast<const float4*>(X), reinterpret_cast<const float4*>(Y), o, K,
                                   R / 4);
  };
}

__global__ void spin_kernel(long long cycles) {
  const long long t0 = clock64();
  while (clock64() - t0 < cycles) {
  }
}

/// Device time per call with the host ahead (a spin kernel first, so that the
/// calls queue behind it), and host time per call enqueued.
void host_vs_device(const char* name, const std::function<void()>& fn) {
  for (int i = 0; i < 3; ++i) fn();
  UFUNC_CUDA_CHECK(cudaDeviceSynchronize());
  cudaEvent_t e0, e1;
  UFUNC_CUDA_CHECK(cudaEventCreate(&e0));
  UFUNC_CUDA_CHECK(cudaEventCreate(&e1));
  std::vector<double> dev, host;
  for (int rep = 0; rep < 7; ++rep) {
    const int n = 20;
    spin_kernel<<<1, 1>>>(4000000);
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
  std::printf("%-44s device %.1f us a call (host ahead), host %.1f us a call to enqueue\n", name, median(dev),
              median(host));
}

/// One call between two events and batches of ten, each against the read
/// kernel of the same bytes timed alike.
void one_vs_ten(const std::string& name, const bench_reference& read, double bytes, double peak,
                const std::function<void()>& fn) {
  const auto [r1, t1] = time_interleaved_ms([&] { read(); }, fn, 25, 1);
  const auto [r10, t10] = time_interleaved_ms([&] { read(); }, fn, 15, 10);
  std::printf("%-44s one call: read/call %.3f (%.1f us, read %.1f us); ten: %.3f (%.1f us, read %.1f us; %.3f of peak)\n",
              name.c_str(), r1 / t1, t1 * 1e3, r1 * 1e3, r10 / t10, t10 * 1e3, r10 * 1e3, bytes / t10 / 1e-3 / peak);
}
}  // namespace

int main() {
  auto dev = bench_device("probe_rows", 0);
  if (!dev) return 0;
  const int sms = dev->multiprocessors;
  const double peak = dev->peak_bandwidth();
  const int R = 8192, K = 8192;
  std::vector<float> hx(std::size_t(R) * K), hy(hx.size());
  std::mt19937 g(11);
  std::uniform_real_distribution<float> d(-1, 1);
  for (auto& v : hx) v = d(g);
  for (auto& v : hy) v = d(g);
  auto X = ufunc::to_device(hx, {K, R}), Y = ufunc::to_device(hy, {K, R});
  auto o = ufunc::empty<float>({K});
  std::vector<double> want(K, 0.0);
  for (int k = 0; k < K; ++k)
    for (int i = 0; i < R; ++i) want[k] += double(hx[std::size_t(k) * R + i]) * hy[std::size_t(k) * R + i];
  const double bytes = 2.0 * R * K * 4;
  const bench_reference read(bench_pass::read, bytes, sms);
  const auto e2 = ufunc::lazy(X) * Y;
  const float *x = X.data(), *y = Y.data();
  float* out = o.data();
  struct variant {
    std::string name;
    std::function<void()> fn;
  };
  const int res128_4 = resident<128, 4, double>(sms), res128_2 = resident<128, 2, double>(sms);
  resident<256, 2, double>(sms), resident<256, 4, double>(sms), resident<64, 4, double>(sms);
  std::vector<variant> vs = {
      {"library sum(lazy(X) * Y, axis 1)", [&] { ufunc::sum(e2, ufunc::axis(1), ufunc::out(o)); }},
      {"rows2 128 U4 double", rows_v<128, 4, double>(x, y, out, K, R)},
      {"rows2 128 U4 float", rows_v<128, 4, float>(x, y, out, K, R)},
      {"rows2 128 U2 double", rows_v<128, 2, double>(x, y, out, K, R)},
      {"rows2 128 U8 double", rows_v<128, 8, double>(x, y, out, K, R)},
      {"rows2 64 U4 double", rows_v<64, 4, double>(x, y, out, K, R)},
      {"rows2 256 U2 double", rows_v<256, 2, double>(x, y, out, K, R)},
      {"rows2 256 U4 double", rows_v<256, 4, double>(x, y, out, K, R)},
      {"rows2 512 U2 double", rows_v<512, 2, double>(x, y, out, K, R)},
      {"rows2 128 U4 double, resident grid", rows_v<128, 4, double>(x, y, out, K, R, res128_4)},
      {"rows2 128 U2 double, resident grid", rows_v<128, 2, double>(x, y, out, K, R, res128_2)},
      {"pair 256 U4", pair<256, 4>(x, y, out, K, R)},
      {"pair 256 U2", pair<256, 2>(x, y, out, K, R)},
  };
  bool ok = true;
  for (auto& v : vs) {
    UFUNC_CUDA_CHECK(cudaMemset(out, 0, K * 4));
    v.fn();
    UFUNC_CUDA_CHECK(cudaDeviceSynchronize());
    const auto got = o.to_host();
    int bad = 0;
    for (int k = 0; k < K; ++k)
      if (std::fabs(got[k] - want[k]) > 1e-3) ++bad;
    if (bad) std::printf("CHECK FAILED: %s: %d rows wrong\n", v.name.c_str(), bad), ok = false;
  }
  for (int pass = 0; pass < 2; ++pass)
    for (auto& v : vs) {
      const auto [tr, tv] = time_interleaved_ms([&] { read(); }, v.fn, 15, 10);
      std::printf("pass %d  %-36s read/variant %.3f  (variant %.1f us, %.3f of peak; read %.3f of peak)\n", pass,
                  v.name.c_str(), tr / tv, tv * 1e3, bytes / tv / 1e-3 / peak, bytes / tr / 1e-3 / peak);
    }
  // The library's calls the failing targets time, one call and ten.
  one_vs_ten("library lazy axis 1", read, bytes, peak, vs[0].fn);
  one_vs_ten("library lazy axis 0", read, bytes, peak, [&] { ufunc::sum(e2, ufunc::axis(0), ufunc::out(o)); });
  one_vs_ten("rows2 128 U4 double", read, bytes, peak, vs[1].fn);
  {
    const bench_reference rx(bench_pass::read, bytes / 2, sms);
    one_vs_ten("library sum(X, axis 1)", rx, bytes / 2, peak, [&] { ufunc::sum(X, ufunc::axis(1), ufunc::out(o)); });
    const auto e3 = ufunc::lazy(X) * 2.0f;
    one_vs_ten("library sum(lazy(X) * 2, axis 1)", rx, bytes / 2, peak,
               [&] { ufunc::sum(e3, ufunc::axis(1), ufunc::out(o)); });
  }
  host_vs_device("library lazy axis 1", vs[0].fn);
  host_vs_device("library lazy axis 0", [&] { ufunc::sum(e2, ufunc::axis(0), ufunc::out(o)); });
  host_vs_device("rows2 128 U4 double", vs[1].fn);
  host_vs_device("read kernel 512 MiB", [&] { read(); });
  {
    const std::size_t n = std::size_t(1) << 28;
    std::vector<__nv_bfloat16> hb(n);
    for (std::size_t i = 0; i < n; ++i) hb[i] = __float2bfloat16(d(g));
    const auto b = ufunc::to_device(hb);
    auto s = ufunc::empty<float>(ufunc::shape{});
    const bench_reference rb(bench_pass::read, 2.0 * n, sms);
    one_vs_ten("library bf16 sum 2^28", rb, 2.0 * n, peak, [&] { ufunc::sum(b, ufunc::out(s)); });
    host_vs_device("library bf16 sum 2^28", [&] { ufunc::sum(b, ufunc::out(s)); });
    host_vs_device("read kernel 512 MiB (bf16)", [&] { rb(); });
  }
  {
    const auto xa = ufunc::to_device(hx);  // 2^26 floats
    auto ri = ufunc::empty<ufunc::index_t>(ufunc::shape{});
    const bench_reference ra(bench_pass::read, 4.0 * hx.size(), sms);
    one_vs_ten("library argmax 2^26", ra, 4.0 * hx.size(), peak, [&] { ufunc::argmax(xa, ufunc::out(ri)); });
    host_vs_device("library argmax 2^26", [&] { ufunc::argmax(xa, ufunc::out(ri)); });
    host_vs_device("read kernel 256 MiB", [&] { ra(); });
  }
  std::printf("probe_rows: %s\n", ok ? "checks passed" : "CHECKS FAILED");
  return ok ? 0 : 1;
}
