// Whole reductions through CUB's dispatch (kernels/reduce_all.cuh) against
// cub::DeviceReduce::Sum over the same bytes, interleaved in one process:
// time ratios (CUB Sum time / ufunc time; >= 1 is as fast). Built once per
// variant (the library's tree, UFUNC_REDUCE_ALL_ITEMS) and run alternately.
#include <ufunc/ufunc.hpp>

#include <cub/device/device_reduce.cuh>
#include <cuda_bf16.h>

#include <cstdio>
#include <vector>

#include "../../bench_util.hpp"

namespace {
struct max_f {
  UFUNC_HD float operator()(float a, float b) const { return a > b ? a : b; }
};
struct mul_f {
  UFUNC_HD float operator()(float a, float b) const { return a * b; }
};

/// CUB Sum of n floats (temp preallocated) as the reference of `bytes`.
struct cub_ref {
  const float* in;
  float* out;
  int n;
  std::size_t bytes = 0;
  void* temp = nullptr;
  cub_ref(const float* i, float* o, std::size_t m) : in(i), out(o), n(static_cast<int>(m)) {
    UFUNC_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, bytes, in, out, n));
    UFUNC_CUDA_CHECK(cudaMalloc(&temp, bytes));
  }
  void operator()() { UFUNC_CUDA_CHECK(cub::DeviceReduce::Sum(temp, bytes, in, out, n)); }
};
}  // namespace

int main() {
  if (!bench_device("probe_whole", 1)) return 0;
  const std::size_t big = std::size_t(1) << 27;
  auto xf = ufunc::full<float>(ufunc::shape{static_cast<ufunc::index_t>(big)}, 0.5f);
  auto yf = ufunc::full<float>(ufunc::shape{static_cast<ufunc::index_t>(big)}, 0.25f);
  auto xi = ufunc::full<int>(ufunc::shape{static_cast<ufunc::index_t>(big)}, 3);
  auto xd = ufunc::full<double>(ufunc::shape{static_cast<ufunc::index_t>(big / 2)}, 0.5);
  auto xb = ufunc::full<__nv_bfloat16>(ufunc::shape{static_cast<ufunc::index_t>(big * 2)}, __float2bfloat16(0.5f));
  auto of = ufunc::zeros<float>(ufunc::shape{});
  auto oi = ufunc::zeros<int>(ufunc::shape{});
  auto od = ufunc::zeros<double>(ufunc::shape{});
  auto ob = ufunc::zeros<__nv_bfloat16>(ufunc::shape{});
  const auto maxr = ufunc::reduce(max_f{});
  const auto dot = ufunc::vectorize(mul_f{});
  cub_ref ref(xf.data(), of.data(), big);
  struct row {
    const char* name;
    std::function<void()> fn;
  };
  std::vector<row> rows = {
      {"sum f32 2^27", [&] { ufunc::sum(xf, ufunc::out(of)); }},
      {"max_f (no identity) f32 2^27", [&] { maxr(xf, ufunc::out(of)); }},
      {"sum i32 2^27", [&] { ufunc::sum(xi, ufunc::out(oi)); }},
      {"sum f64 2^26", [&] { ufunc::sum(xd, ufunc::out(od)); }},
      {"sum bf16 2^28", [&] { ufunc::sum(xb, ufunc::out(ob)); }},
      {"dot f32 2^27 (8 bytes/elem; ratio x2)", [&] { ufunc::sum(dot.lazy(xf, yf), ufunc::out(of)); }},
  };
  std::vector<std::function<void()>> fns = {[&] { ref(); }};
  for (auto& r : rows) fns.push_back(r.fn);
  for (int pass = 0; pass < 2; ++pass) {
    const auto t = time_interleaved_ms(fns, 15, 10);
    std::printf("pass %d: cub Sum 2^27 f32 %.4f ms\n", pass, t[0]);
    for (std::size_t k = 0; k < rows.size(); ++k)
      std::printf("  %-40s %.4f ms  cub/ours %.3f\n", rows[k].name, t[k + 1], t[0] / t[k + 1]);
  }
  // Short inputs (one-block kernels): device time per call, batches of 50.
  for (ufunc::index_t n : {1000, 4096, 16384, 65536, 1 << 20}) {
    auto s = ufunc::full<float>(ufunc::shape{n}, 0.5f);
    auto si = ufunc::full<int>(ufunc::shape{n}, 1);
    cub_ref r2(s.data(), of.data(), static_cast<std::size_t>(n));
    const auto t = time_interleaved_ms({[&] { r2(); }, [&] { ufunc::sum(s, ufunc::out(of)); },
                                        [&] { maxr(s, ufunc::out(of)); }, [&] { ufunc::sum(si, ufunc::out(oi)); }},
                                       15, 50);
    std::printf("n %8lld: cub %.2f us, sum %.2f us, max_f %.2f us, sum i32 %.2f us\n", static_cast<long long>(n),
                t[0] * 1e3, t[1] * 1e3, t[2] * 1e3, t[3] * 1e3);
  }
  // Correctness at these sizes (exact: constant data).
  std::printf("check: sum f32 %.1f (%.1f), i32 %d, max %.2f\n", static_cast<double>(ufunc::sum(xf)), 0.5 * big,
              ufunc::sum(xi), static_cast<double>(maxr(xf)));
  return 0;
}
