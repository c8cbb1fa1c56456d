// The reductions still short of their H200 targets, timed against the read
// kernel of the same bytes (interleaved batches, as bench_lazy / bench_half), or
// with --prof each called once for Nsight Compute (`ncu`): argmax of 2^27
// floats, sum(lazy(X) * Y) over each axis of (8192, 8192), sum over axis 0 of
// (8192, 8192), and the bf16 sum of 2^28.
#include <ufunc/ufunc.hpp>

#include <cuda_bf16.h>

#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "../../bench_copy.cuh"
#include "../../bench_util.hpp"

int main(int argc, char** argv) {
  const bool prof = argc > 1 && std::strcmp(argv[1], "--prof") == 0;
  auto dev = bench_device("probe_prof", 0);
  if (!dev) return 0;
  const ufunc::index_t n = ufunc::index_t(1) << 27, s = 8192;
  std::vector<float> h(static_cast<std::size_t>(n));
  std::mt19937 g(11);
  std::uniform_real_distribution<float> d(-1, 1);
  for (auto& v : h) v = d(g);
  auto x = ufunc::to_device(h);
  auto X = ufunc::to_device(std::vector<float>(h.begin(), h.begin() + s * s), {s, s});
  auto Y = ufunc::to_device(std::vector<float>(h.begin() + s * s, h.begin() + 2 * s * s), {s, s});
  std::vector<__nv_bfloat16> hb(static_cast<std::size_t>(2 * n));
  for (std::size_t i = 0; i < hb.size(); ++i) hb[i] = __float2bfloat16(h[i % h.size()]);
  auto xb = ufunc::to_device(hb);
  auto ri = ufunc::empty<ufunc::index_t>(ufunc::shape{});
  auto r0 = ufunc::empty<float>(ufunc::shape{});
  auto rs = ufunc::empty<float>({s});
  const auto e = ufunc::lazy(X) * Y;
  struct item {
    std::string name;
    double bytes;
    std::function<void()> fn;
    int batch;
  };
  const double b1 = double(n) * 4;
  std::vector<item> items = {
      {"argmax 2^27 f32", b1, [&] { ufunc::argmax(x, ufunc::out(ri)); }, 5},
      {"sum(lazy(X) * Y) axis 0", b1, [&] { ufunc::sum(e, ufunc::axis(0), ufunc::out(rs)); }, 1},
      {"sum(lazy(X) * Y) axis 1", b1, [&] { ufunc::sum(e, ufunc::axis(1), ufunc::out(rs)); }, 1},
      {"sum(X) axis 0", b1 / 2, [&] { ufunc::sum(X, ufunc::axis(0), ufunc::out(rs)); }, 5},
      {"sum(X) axis 1", b1 / 2, [&] { ufunc::sum(X, ufunc::axis(1), ufunc::out(rs)); }, 5},
      {"sum bf16 2^28", b1, [&] { ufunc::sum(xb, ufunc::out(r0)); }, 5},
  };
  if (prof) {
    for (auto& it : items) it.fn();
    bench_read_bytes(x.data(), static_cast<long long>(b1), dev->multiprocessors, reinterpret_cast<unsigned*>(ri.data()));
    UFUNC_CUDA_CHECK(cudaDeviceSynchronize());
    return 0;
  }
  for (int pass = 0; pass < 2; ++pass)
    for (auto& it : items) {
      const bench_reference read(bench_pass::read, it.bytes, dev->multiprocessors);
      const auto [tr, tv] = time_interleaved_ms([&] { read(); }, it.fn, 15, it.batch);
      std::printf("pass %d  %-28s read/call %.3f  (call %.1f us, read %.1f us; batch %d)\n", pass, it.name.c_str(),
                  tr / tv, tv * 1e3, tr * 1e3, it.batch);
    }
  return 0;
}
