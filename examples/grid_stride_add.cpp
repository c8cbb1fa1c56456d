// grid_stride_add: the seeds' add_kernel, out[i] = x[i] + y[i], where each thread
// starts at its grid position and steps by the size of the whole grid, so a grid
// of any size covers an array of any size.
//
// The seed writes the loop by hand (`for i in range(start, x.shape[0], stride)`)
// and launches 30 blocks of 128 threads. parallel_for does the same loop for
// every kernel it runs: without a configuration it asks the occupancy API for the
// block size and launches just enough blocks to fill the GPU once (or fewer for
// small arrays); with `ufunc::launch_config{30, 128}` it launches exactly the
// seed's grid, whose 3840 threads then each take about 26 of the 100,000 elements.
// Either way the result is the same: the configuration changes only how the work
// is spread, never which elements are done. Both are checked against a serial sum.
#include <ufunc/ufunc.hpp>

#include <cstdio>
#include <vector>

namespace {

bool check(const char* what, const std::vector<float>& got, const std::vector<float>& x, const std::vector<float>& y) {
  std::size_t bad = 0;
  for (std::size_t i = 0; i < x.size(); ++i) bad += got[i] != x[i] + y[i];
  std::printf("%-44s %zu elements, %zu mismatches\n", what, x.size(), bad);
  return bad == 0;
}

}  // namespace

int main() {
  if (ufunc::cuda_backend && !ufunc::device_available()) {
    std::puts("grid_stride_add: no CUDA device, skipped");
    return 77;
  }
  const std::size_t n = 100'000;
  std::vector<float> hx(n), hy(n);
  for (std::size_t i = 0; i < n; ++i) {
    hx[i] = static_cast<float>(i);
    hy[i] = 2.0f * static_cast<float>(i);
  }
  auto x = ufunc::to_device(hx), y = ufunc::to_device(hy);
  auto out = ufunc::empty_like(x);
  auto xv = x.view(), yv = y.view(), ov = out.view();
  auto add = [=] UFUNC_HD (std::size_t i) { ov[i] = xv[i] + yv[i]; };

  bool ok = true;
  ufunc::parallel_for(n, add);  // launch configuration from the occupancy API
  ok &= check("automatic (occupancy API, grid-stride loop):", out.to_host(), hx, hy);

  ufunc::parallel_for(n, [=] UFUNC_HD (std::size_t i) { ov[i] = -1.0f; });  // wipe it
  ufunc::parallel_for(n, add, ufunc::launch_config{30, 128});  // the seed's grid
  ok &= check("launch_config{30, 128} (the seed's grid):", out.to_host(), hx, hy);

  ufunc::parallel_for(n, [=] UFUNC_HD (std::size_t i) { ov[i] = -1.0f; });
  ufunc::parallel_for(n, add, ufunc::launch_config{1, 32});  // one warp does it all
  ok &= check("launch_config{1, 32} (a single warp):", out.to_host(), hx, hy);

  std::puts(ok ? "grid_stride_add: ok" : "grid_stride_add: FAILED");
  return ok ? 0 : 1;
}
