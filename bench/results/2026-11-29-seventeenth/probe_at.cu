// Probe (session 17, call 4): where add.at's time goes. 2^26 random int64 indices into
// 2^20 float32 bins: ufunc's add.at (staging copy, checked updates, device commit, flag
// read), against bare atomicAdd kernels (CuPy's scatter_add is one: 256 threads, one
// update a thread-iteration; and 4 loads in flight a thread, as ufunc's update kernel).
#include <ufunc/ufunc.hpp>
#include "bench_util.hpp"
#include <cstdio>
#include <random>
using namespace bench;
using ufunc::index_t;
template <int U>
__global__ void __launch_bounds__(256) bare_k(float* a, const long long* idx, const float* b, long long m) {
  const long long step = (long long)gridDim.x * blockDim.x;
  for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < m; k += step * U) {
    long long i[U];
    float v[U];
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (k + u * step < m) i[u] = idx[k + u * step], v[u] = b[k + u * step];
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (k + u * step < m) atomicAdd(a + i[u], v[u]);
  }
}
template <int U>
void bare(float* a, const long long* idx, const float* b, long long m, int sms, int blocks_per_sm) {
  bare_k<U><<<sms * blocks_per_sm, 256>>>(a, idx, b, m);
}
int main() {
  const auto dev = bench_device("probe_at", 0);
  if (!dev) return 77;
  const int sms = dev->multiprocessors;
  const index_t bins = index_t(1) << 20, m = index_t(1) << 26;
  std::mt19937_64 g(20261129);
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
  const auto add = ufunc::vectorize(ufunc::plus{}, "add");
  const auto* ip = reinterpret_cast<const long long*>(idx.data());
  // agreement: one call each from zero, sums compared (order differs: tolerance)
  add.at(a, idx, b);
  bare<4>(a2.data(), ip, b.data(), m, sms, 8);
  const auto x = a.to_host(), y = a2.to_host();
  double worst = 0;
  for (std::size_t i = 0; i < x.size(); ++i) worst = std::max(worst, double(std::fabs(x[i] - y[i])));
  std::printf("largest difference ufunc / bare kernel over the bins: %.3g\n", worst);
  for (int round = 0; round < 3; ++round) {
    const auto t = time_interleaved_ms({[&] { add.at(a, idx, b); },
                                        [&] { bare<1>(a2.data(), ip, b.data(), m, sms, 8); },
                                        [&] { bare<4>(a2.data(), ip, b.data(), m, sms, 8); },
                                        [&] { bare<1>(a2.data(), ip, b.data(), m, sms, 32); },
                                        [&] { bare<2>(a2.data(), ip, b.data(), m, sms, 8); }},
                                       25, 1);
    std::printf("add.at %.4f ms | bare U=1 wave %.4f | U=4 wave %.4f | U=1 4 waves %.4f | U=2 wave %.4f\n", t[0], t[1],
                t[2], t[3], t[4]);
  }
  return 0;
}
