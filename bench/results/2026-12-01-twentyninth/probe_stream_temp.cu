// Session 29, issue 36's one-call figures: a whole reduction into `out` took a
// stream-ordered allocation and free for its temporary at every call; the stream's
// reusable block (detail/cuda/scratch.hpp's stream_temp) removes them. Built twice,
// against the include/ before (HEAD) and after the change, and alternated on one
// H200: host time a call (batches of asynchronous calls) and one call timed between
// two events against the read kernel of the same bytes (bench_half's figure).
#include <ufunc/ufunc.hpp>

#include <cuda_bf16.h>

#include <cstdio>
#include <random>
#include <vector>

#include "../../bench_copy.cuh"
#include "../../bench_util.hpp"

int main() {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  const auto dev = bench::bench_device("probe_stream_temp", 0);
  if (!dev) return 0;
  const int sms = dev->multiprocessors;
  const int n = 1 << 20;
  std::mt19937 rng(7);
  std::normal_distribution<float> nd(0.f, 1.f);
  std::vector<float> hf(n);
  for (auto& v : hf) v = nd(rng);
  std::vector<double> hd(hf.begin(), hf.end());
  std::vector<__nv_bfloat16> hb(n);
  for (int i = 0; i < n; ++i) hb[i] = __float2bfloat16(hf[i]);
  const auto x = ufunc::to_device(hf);
  const auto xd = ufunc::to_device(hd);
  const auto xb = ufunc::to_device(hb);
  const auto x2 = ufunc::to_device(hf, ufunc::shape{n / 8, 8});
  auto s0 = ufunc::empty<float>(ufunc::shape{});
  auto a0 = ufunc::empty<ufunc::index_t>(ufunc::shape{});
  auto c8 = ufunc::empty<float>(ufunc::shape{8});
  const std::size_t big = std::size_t(1) << 28;
  std::vector<__nv_bfloat16> hbig(big);
  for (std::size_t i = 0; i < big; ++i) hbig[i] = hb[i % n];
  const auto xbig = ufunc::to_device(hbig);
  hbig.clear();
  hbig.shrink_to_fit();
  for (int round = 0; round < 3; ++round) {
    std::printf("round %d, host us a call (2^20):\n", round);
    std::printf("  sum(x, out) f32                %.2f\n",
                bench::time_host_us_per_call([&] { ufunc::sum(x, ufunc::out(s0)); }, 1000, 9));
    std::printf("  sum(x, out) bf16               %.2f\n",
                bench::time_host_us_per_call([&] { ufunc::sum(xb, ufunc::out(s0)); }, 1000, 9));
    std::printf("  argmax(x, out) double          %.2f\n",
                bench::time_host_us_per_call([&] { ufunc::argmax(xd, ufunc::out(a0)); }, 1000, 9));
    std::printf("  sum((2^17, 8), axis 0, out)    %.2f\n",
                bench::time_host_us_per_call([&] { ufunc::sum(x2, ufunc::axis(0), ufunc::out(c8)); }, 1000, 9));
    const bench_reference read(bench_pass::read, 2.0 * double(big), sms);
    const auto [read_ms, sum_ms] =
        bench::time_interleaved_ms([&] { read(); }, [&] { ufunc::sum(xbig, ufunc::out(s0)); }, 25, 1);
    std::printf("  bf16 2^28 sum, one call / read kernel   %.4f  (%.4f ms vs %.4f ms)\n", read_ms / sum_ms, sum_ms,
                read_ms);
    const auto [read10, sum10] =
        bench::time_interleaved_ms([&] { read(); }, [&] { ufunc::sum(xbig, ufunc::out(s0)); }, 15, 10);
    std::printf("  bf16 2^28 sum, batches of 10 / read     %.4f\n", read10 / sum10);
  }
  UFUNC_CUDA_CHECK(cudaDeviceSynchronize());
  double want = 0;
  for (float v : hf) want += v;
  std::printf("check: f32 sum %.4f want %.4f; argmax %lld\n", double(ufunc::sum(x)), want,
              static_cast<long long>(ufunc::argmax(xd)));
  return 0;
}
