// Built against ufunc as an outside project would (installed package, or source
// tree by add_subdirectory): proves the target works. Exits 77 (skipped) in a CUDA
// build on a machine with no GPU.
#include <ufunc/ufunc.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

int main() {
  if (ufunc::cuda_backend && !ufunc::device_available()) {
    std::puts("consumer: no CUDA device, skipped");
    return 77;
  }
  auto axpy = ufunc::vectorize([] UFUNC_HD (float a, float x, float y) { return a * x + y; });
  std::vector<float> hx(1000), hy(1000);
  for (int i = 0; i < 1000; ++i) {
    hx[i] = 0.5f * static_cast<float>(i);
    hy[i] = static_cast<float>(i % 7);
  }
  auto r = axpy(3.0f, ufunc::to_device(hx), ufunc::to_device(hy)).to_host();
  for (int i = 0; i < 1000; ++i)
    if (std::fabs(r[i] - (3.0f * hx[i] + hy[i])) > 1e-5f) {
      std::printf("consumer: mismatch at %d\n", i);
      return 1;
    }
  std::puts("consumer: ok");
  return 0;
}
