// Tuning sweep for the elementwise kernels (the numbers behind flat_tuning and
// nd_tuning): launches the kernels directly with several unroll factors,
// elements per thread and grid sizes (full coverage vs a few waves of resident
// blocks with a grid-stride loop), next to a device copy and a memset.
#include <ufunc/ufunc.hpp>
#include <ufunc/detail/cuda/kernels/elementwise_rows.cuh>

#include "bench_util.hpp"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>

using namespace ufunc;
using namespace ufunc::detail;

namespace {
constexpr float SQRT_2PI = 2.5066282746310002f;

/// The upper median of `reps` device times of fn() in ms, after 3 warm-up calls;
/// then the kernels' launch errors are checked.
double time_ms(const std::function<void()>& fn, int reps = 20) {
  for (int i = 0; i < 3; ++i) fn();
  event_timer ev;
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) t.push_back(ev.time_ms(fn));
  UFUNC_CUDA_CHECK(cudaGetLastError());
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

struct pdf_fn {
  __host__ __device__ float operator()(float x, float mean, float sigma) const {
    float z = (x - mean) / sigma;
    return expf(-0.5f * z * z) / (sigma * SQRT_2PI);
  }
};
struct add_fn {
  __host__ __device__ float operator()(float a, float b) const { return a + b; }
};

template <class K>
int occupancy(K kernel, int block) {
  int nb = 0;
  UFUNC_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, kernel, block, 0));
  return nb;
}
}  // namespace

int main() {
  auto devs = devices();
  if (devs.empty()) return 77;
  const double peak = devs[0].peak_bandwidth();
  const int sms = devs[0].multiprocessors;
  std::printf("%s peak %.0f GB/s\n", devs[0].name.c_str(), peak / 1e9);
  const index_t n = index_t(1) << 27;
  auto x = full<float>({n}, 0.5f);
  auto y = empty<float>({n});
  const double bytes = 8.0 * n;
  std::printf("memcpy      %.3f of peak\n", bytes / time_ms([&] { cudaMemcpyAsync(y.data(), x.data(), n * 4, cudaMemcpyDeviceToDevice); }) / 1e-3 / peak);
  std::printf("memset      %.3f of peak (write only)\n", 4.0 * n / time_ms([&] { cudaMemsetAsync(y.data(), 0, n * 4); }) / 1e-3 / peak);

  using Outs = cuda::std::tuple<float*>;
  using Ins = cuda::std::tuple<in_ptr<float>, in_value<float>, in_value<float>>;
  Outs outs{y.data()};
  Ins ins{in_ptr<float>{x.data()}, in_value<float>{0.f}, in_value<float>{1.f}};
  auto sweep_flat = [&](auto kernel, int U, const char* name) {
    const int occ = occupancy(kernel, 256);
    const index_t full_grid = (n / 4 + 256 * U - 1) / (256 * U);
    for (int waves : {0}) {
      const unsigned grid = waves ? unsigned(sms * occ * waves) : unsigned(full_grid);
      const double ms = time_ms([&] { kernel<<<grid, 256>>>(pdf_fn{}, outs, ins, n); });
      std::printf("flat %-4s U=%d occ=%d waves=%d grid=%u: %.3f of peak\n", name, U, occ, waves, grid, bytes / ms / 1e-3 / peak);
    }
  };
  sweep_flat(elementwise_flat_kernel<4, 2, float, pdf_fn, Outs, in_ptr<float>, in_value<float>, in_value<float>>, 2, "pdf");
  sweep_flat(elementwise_flat_kernel<4, 4, float, pdf_fn, Outs, in_ptr<float>, in_value<float>, in_value<float>>, 4, "pdf");
  sweep_flat(elementwise_flat_kernel<4, 8, float, pdf_fn, Outs, in_ptr<float>, in_value<float>, in_value<float>>, 8, "pdf");

  // Broadcast (8192,1) + (1,8192) -> (8192,8192), bytes written only.
  const index_t m = 8192;
  auto col = full<float>({m, 1}, 1.f), row = full<float>({1, m}, 2.f);
  auto big = empty<float>({m, m});
  std::array<operand_layout, 3> L{};
  auto lay = [](operand_layout& l, const void* p, shape s) {
    l.is_array = true; l.data = p; l.elem_size = 4; l.shp = s;
    auto st = contiguous_strides(s);
    std::copy(st.begin(), st.end(), l.strides.begin());
  };
  lay(L[0], big.data(), {m, m});
  lay(L[1], col.data(), {m, 1});
  lay(L[2], row.data(), {1, m});
  auto merged = merge_layout<3>(shape{m, m}, L);
  auto plan = make_plan<3, std::uint32_t>(merged);
  using Ins2 = cuda::std::tuple<in_ptr<float>, in_ptr<float>>;
  Ins2 ins2{in_ptr<float>{col.data()}, in_ptr<float>{row.data()}};
  Outs outs2{big.data()};
  const double wbytes = 4.0 * m * m;
  auto sweep_nd = [&](auto kernel, int E) {
    const int occ = occupancy(kernel, 256);
    const index_t full_grid = (m * m + 256 * E - 1) / (256 * E);
    for (int waves : {0, 1, 2, 4, 8}) {
      const unsigned grid = waves ? unsigned(sms * occ * waves) : unsigned(full_grid);
      const double ms = time_ms([&] { kernel<<<grid, 256>>>(add_fn{}, outs2, ins2, plan, m * m, true); });
      std::printf("nd  E=%d occ=%d waves=%d grid=%u: %.3f of peak (written)\n", E, occ, waves, grid, wbytes / ms / 1e-3 / peak);
    }
  };
  sweep_nd(elementwise_nd_kernel<4, std::uint32_t, float, add_fn, Outs, Ins2, 3>, 4);
  walk_modes<3> modes{{walk::contiguous, walk::broadcast, walk::contiguous}};
  auto sweep_rows = [&](auto kernel, int G) {
    const int occ = occupancy(kernel, 256);
    const index_t tpr = (m + 256 * 4 * G - 1) / (256 * 4 * G);
    const index_t ntiles = m * tpr;
    for (int waves : {0, 8}) {
      const unsigned grid = waves ? unsigned(std::min<index_t>(ntiles, sms * occ * waves)) : unsigned(ntiles);
      const double ms = time_ms([&] {
        kernel<<<grid, 256>>>(add_fn{}, outs2, ins2, plan, modes, divider<std::uint32_t>(std::uint32_t(tpr)), std::uint32_t(ntiles));
      });
      std::printf("rows V=4 G=%d occ=%d waves=%d grid=%u: %.3f of peak (written)\n", G, occ, waves, grid, wbytes / ms / 1e-3 / peak);
    }
  };
  sweep_rows(elementwise_rows_kernel<4, 2, std::uint32_t, float, 3, add_fn, Outs, in_ptr<float>, in_ptr<float>>, 2);
  sweep_rows(elementwise_rows_kernel<4, 4, std::uint32_t, float, 3, add_fn, Outs, in_ptr<float>, in_ptr<float>>, 4);
  // Transposed input: out(i,j) = big(j,i) + 1, read+write bytes.
  auto tout = empty<float>({m, m});
  std::array<operand_layout, 2> LT{};
  lay(LT[0], tout.data(), {m, m});
  LT[1] = LT[0];
  LT[1].data = big.data();
  LT[1].strides = {1, m};
  auto mt = merge_layout<2>(shape{m, m}, LT);
  auto plant = make_plan<2, std::uint32_t>(mt);
  using Ins3 = cuda::std::tuple<in_ptr<float>, in_value<float>>;
  Ins3 ins3{in_ptr<float>{big.data()}, in_value<float>{1.f}};
  Outs outs3{tout.data()};
  {
    walk_modes<2> tm{{walk::contiguous, walk::strided}};
    const index_t tpr = (m + 1024 * 4 - 1) / (1024 * 4);
    const double ms = time_ms([&] {
      elementwise_rows_kernel<4, 4, std::uint32_t, float, 2, add_fn, Outs, in_ptr<float>, in_value<float>><<<unsigned(m * tpr), 256>>>(add_fn{}, outs3, ins3, plant, tm, divider<std::uint32_t>(std::uint32_t(tpr)), std::uint32_t(m * tpr));
    }, 10);
    std::printf("rows transposed-input: %.3f of peak (read+write)\n", 2 * wbytes / ms / 1e-3 / peak);
  }
  {
    const double ms = time_ms([&] {
      elementwise_nd_kernel<4, std::uint32_t, float, add_fn, Outs, Ins3, 2><<<unsigned(m * m / 1024), 256>>>(add_fn{}, outs3, ins3, plant, m * m, true);
    }, 10);
    std::printf("nd   transposed-input E=4: %.3f of peak (read+write)\n", 2 * wbytes / ms / 1e-3 / peak);
  }
  auto hb = big.to_host();
  std::printf("check big[5] = %g (expect 3)\n", hb[5]);
  return 0;
}
