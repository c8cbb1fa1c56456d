// Issue 41's dot, (n),(n)->() over 2^20 rows of n = 64 floats, against a device
// copy of the same bytes (as bench_gufunc times it: one call between two events,
// and batches of 10), H200, session 28. Standalone staged kernels, each thread
// one row (as the library's gufunc kernel: f sees strided views of its rows in
// shared memory, strides passed at run time):
//   lib:   ufunc::gufunc(dot) itself;
//   a4:    the library's copy: 4-byte cp.async, rows padded to 65 words, one stage;
//   a4x2:  the same, double-buffered (the next tile's copies in flight while
//          this one is folded);
//   a16:   16-byte cp.async (a quarter of the copy instructions), rows padded to
//          68 words (16-byte aligned; 4-way bank conflicts in the fold), one stage;
//   a16x2: a16 double-buffered;
//   a16b128: a16 with 128 rows a block.
// Then the same for rows of 16 floats (2^24 rows), and the host time a call
// costs. Each result is checked against a double loop first.
#include <ufunc/gufunc.hpp>
#include <ufunc/ufunc.hpp>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "../../bench_copy.cuh"
#include "../../bench_util.hpp"

using namespace bench;

namespace {
struct dot_f {
  template <class X, class Y, class R>
  UFUNC_HD void operator()(const X& x, const Y& y, const R& r) const noexcept {
    float s = 0;
    for (ufunc::index_t j = 0; j < x.shape()[0]; ++j) s += x(j) * y(j);
    r() = s;
  }
};

__device__ __forceinline__ void cp4(float* dst, const float* src) {
  const auto to = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(to), "l"(src) : "memory");
}
__device__ __forceinline__ void cp16(float* dst, const float* src) {
  const auto to = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(to), "l"(src) : "memory");
}
__device__ __forceinline__ void commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wait_group() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory"); }

// Rows [r0, r0 + nb) of one input (n = 64 floats each) into rows of `pad` floats.
template <int B, bool V16>
__device__ __forceinline__ void stage(const float* src, float* dst, int nb, int n, int pad) {
  if constexpr (V16) {
    const int per = n / 4, total = nb * per;
    for (int u = threadIdx.x; u < total; u += B) {
      const int row = u / per, c = u - row * per;
      cp16(dst + row * pad + c * 4, src + u * 4);
    }
  } else {
    const int total = nb * n;
    for (int i = threadIdx.x; i < total; i += B) {
      const int row = i / n, c = i - row * n;
      cp4(dst + row * pad + c, src + i);
    }
  }
}

template <int B, bool V16, bool DOUBLE>
__global__ void __launch_bounds__(B) dot_kernel(const float* x, const float* y, float* out, long long rows, int n,
                                                int pad, int cs) {
  extern __shared__ __align__(16) float sm[];
  const int tile_floats = B * pad;  // one input, one stage
  float* buf[2][2] = {{sm, sm + tile_floats}, {sm + 2 * tile_floats, sm + 3 * tile_floats}};
  const long long step = static_cast<long long>(gridDim.x) * B;
  long long e0 = static_cast<long long>(blockIdx.x) * B;
  auto issue = [&](long long e, int s) {
    const int nb = static_cast<int>(rows - e < B ? rows - e : B);
    stage<B, V16>(x + e * n, buf[s][0], nb, n, pad);
    stage<B, V16>(y + e * n, buf[s][1], nb, n, pad);
    commit();
  };
  auto fold = [&](long long e, int s) {
    const int nb = static_cast<int>(rows - e < B ? rows - e : B);
    if (static_cast<int>(threadIdx.x) < nb) {
      const float* xr = buf[s][0] + threadIdx.x * pad;
      const float* yr = buf[s][1] + threadIdx.x * pad;
      float acc = 0;
      for (int j = 0; j < n; ++j) acc += xr[j * cs] * yr[j * cs];
      out[e + threadIdx.x] = acc;
    }
  };
  if constexpr (DOUBLE) {
    int s = 0;
    if (e0 < rows) issue(e0, 0);
    for (; e0 < rows; e0 += step, s ^= 1) {
      if (e0 + step < rows) {
        issue(e0 + step, s ^ 1);
        wait_group<1>();
      } else {
        wait_group<0>();
      }
      __syncthreads();
      fold(e0, s);
      __syncthreads();
    }
  } else {
    for (; e0 < rows; e0 += step) {
      issue(e0, 0);
      wait_group<0>();
      __syncthreads();
      fold(e0, 0);
      __syncthreads();
    }
  }
}

struct variant {
  const char* name;
  void (*kernel)(const float*, const float*, float*, long long, int, int, int);
  int block, pad;
  bool dbl;
  int n;
};

// Host time a call costs (rows = 256: the device finishes each at once): the
// library's call, its plan alone (layouts, plan_gufunc, the staging plan) and a
// bare launch of a staged kernel.
void host_costs() {
  const long long rows = 256;
  const int n = 64;
  const auto x = ufunc::asarray(std::vector<float>(rows * n, 1.f), ufunc::shape{rows, n});
  const auto y = ufunc::asarray(std::vector<float>(rows * n, 2.f), ufunc::shape{rows, n});
  auto r = ufunc::empty<float>(ufunc::shape{rows});
  const auto dot = ufunc::gufunc(dot_f{}, "(n),(n)->()");
  const auto sig = ufunc::detail::parse_gufunc_signature("(n),(n)->()");
  auto plan = [&] {
    std::vector<ufunc::detail::operand_layout> in_l, out_l;
    in_l.push_back(ufunc::detail::layout_of(x.view()));
    in_l.push_back(ufunc::detail::layout_of(y.view()));
    out_l.push_back(ufunc::detail::layout_of(r.view()));
    const auto p = ufunc::detail::plan_gufunc(sig, in_l, out_l, "gufunc");
    std::vector<std::size_t> size{4, 4};
    std::vector<std::uintptr_t> addr{reinterpret_cast<std::uintptr_t>(x.data()), reinterpret_cast<std::uintptr_t>(y.data())};
    std::size_t bytes = 0;
    const auto st = ufunc::detail::plan_gufunc_staging(p, size, addr, 64, 96 * 1024, &bytes, 128, 256);
    if (st.size() != 2) std::puts("?");
  };
  const auto k = dot_kernel<64, true, false>;
  const std::size_t smem = 2 * 64 * 68 * sizeof(float);
  auto bare = [&] { k<<<4, 64, smem>>>(x.data(), y.data(), r.data(), rows, n, 68, 1); };
  auto call = [&] { dot(x, y, ufunc::out(r)); };
  auto s0 = ufunc::empty<float>(ufunc::shape{});
  auto sum = [&] { ufunc::sum(x, ufunc::out(s0)); };
  auto timed = [](const char* what, const std::function<void()>& fn) {
    try {
      const double us = bench::time_host_us_per_call(fn, 1000, 9);
      const cudaError_t e = cudaDeviceSynchronize();
      std::printf("  %s: %.2f us (%s)\n", what, us, cudaGetErrorString(e));
    } catch (const std::exception& ex) {
      std::printf("  %s: threw %s\n", what, ex.what());
    }
    (void)cudaGetLastError();
  };
  for (int round = 0; round < 2; ++round) {
    std::printf("host time a call, round %d\n", round);
    timed("gufunc dot", call);
    timed("its plan", plan);
    timed("bare staged launch", bare);
    timed("sum to a 0-d out", sum);
  }
}

template <int N>
void run_case(int sms, long long rows, const variant (&vs)[N]) {
  const int n = vs[0].n;
  std::mt19937 g(41);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> xh(static_cast<std::size_t>(rows * n)), yh(xh.size());
  for (auto& v : xh) v = u(g);
  for (auto& v : yh) v = u(g);
  const auto x = ufunc::asarray(xh, ufunc::shape{rows, n}), y = ufunc::asarray(yh, ufunc::shape{rows, n});
  auto r = ufunc::empty<float>(ufunc::shape{rows});
  const auto dot = ufunc::gufunc(dot_f{}, "(n),(n)->()");
  std::vector<std::function<void()>> fns;
  std::vector<std::string> names;
  const double bytes = 2.0 * 4 * rows * n + 4.0 * rows;
  const bench_reference copy(bench_pass::copy, bytes, sms);
  fns.push_back([&] { copy(); });
  names.push_back("copy");
  fns.push_back([&] { dot(x, y, ufunc::out(r)); });
  names.push_back("lib");
  bool ok = true;
  auto check = [&](const char* what) {
    const auto rh = r.to_host();
    int bad = 0;
    for (long long k = 0; k < rows; k += 331) {
      double s = 0, a = 0;
      for (int j = 0; j < n; ++j) s += double(xh[k * n + j]) * yh[k * n + j], a += std::fabs(double(xh[k * n + j]) * yh[k * n + j]);
      bad += !(std::fabs(rh[static_cast<std::size_t>(k)] - s) <= (n + 2) * 6e-8 * a);
    }
    if (bad) std::printf("CHECK FAILED: %s, %d rows\n", what, bad), ok = false;
  };
  dot(x, y, ufunc::out(r));
  check("lib");
  std::printf("rows of %d floats, %lld rows\n", n, rows);
  for (const auto& v : vs) {
    const std::size_t smem = std::size_t(v.dbl ? 4 : 2) * v.block * v.pad * sizeof(float);
    // The cap, not this variant's size: variants share kernels.
    int optin = 0;
    UFUNC_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
    UFUNC_CUDA_CHECK(cudaFuncSetAttribute(v.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, optin));
    int per_sm = 0;
    UFUNC_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, v.kernel, v.block, smem));
    const long long tiles = (rows + v.block - 1) / v.block;
    const unsigned grid = static_cast<unsigned>(std::min<long long>(tiles, 1ll * sms * per_sm));
    std::printf("  %-9s block %3d pad %d smem %6zu B, %d blocks an SM, grid %u\n", v.name, v.block, v.pad, smem, per_sm, grid);
    auto launch = [&, v, smem, grid] {
      v.kernel<<<grid, v.block, smem>>>(x.data(), y.data(), r.data(), rows, n, v.pad, 1);
    };
    UFUNC_CUDA_CHECK(cudaMemset(r.data(), 0xff, sizeof(float) * rows));
    launch();
    UFUNC_CUDA_CHECK(cudaDeviceSynchronize());
    check(v.name);
    fns.push_back(launch);
    names.push_back(v.name);
  }
  if (!ok) std::exit(1);
  for (int batch : {1, 10}) {
    for (int round = 0; round < 2; ++round) {
      const auto t = time_interleaved_ms(fns, 25, batch);
      std::printf("  batch %2d round %d (fraction of the copy's rate):", batch, round);
      for (std::size_t k = 1; k < t.size(); ++k) std::printf("  %s %.3f", names[k].c_str(), t[0] / t[k]);
      std::printf("  (copy %.1f us)\n", t[0] * 1e3);
    }
  }
}
}  // namespace

int main() {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  const auto dev = bench_device("probe_gufunc_stage", 0);
  if (!dev) return 0;
  const int sms = dev->multiprocessors;
  const variant v64[] = {
      {"a16", dot_kernel<64, true, false>, 64, 68, false, 64},
      {"a16p76", dot_kernel<64, true, false>, 64, 76, false, 64},
      {"a16p64", dot_kernel<64, true, false>, 64, 64, false, 64},
      {"a16b32", dot_kernel<32, true, false>, 32, 68, false, 64},
      {"a16b128", dot_kernel<128, true, false>, 128, 68, false, 64},
  };
  run_case(sms, 1ll << 20, v64);
  const variant v16[] = {
      {"a16", dot_kernel<64, true, false>, 64, 20, false, 16},
      {"a16b128", dot_kernel<128, true, false>, 128, 20, false, 16},
      {"a4", dot_kernel<64, false, false>, 64, 17, false, 16},
  };
  run_case(sms, 1ll << 24, v16);
  host_costs();
  return 0;
}
