// Compile-time probe (issue 43): ufunc_six_node.cu's expression,
// gaussian_pdf(hypot(x - mx, y - my), 0, 1) * w with (1024) rows broadcast,
// as a MatX user writes it (operators; MatX has no hypot), evaluated into r.
// Needs MatX's include dir and C++20 (scripts/compile_times.sh: MATX_INCLUDE).
#include <matx.h>

#include <cstdio>

int main() {
  auto x = matx::make_tensor<float>({1024, 1024}), y = matx::make_tensor<float>({1024, 1024});
  auto w = matx::make_tensor<float>({1024, 1024}), r = matx::make_tensor<float>({1024, 1024});
  auto mx = matx::make_tensor<float>({1024}), my = matx::make_tensor<float>({1024});
  const float mu = 0.0f, sigma = 1.0f;
  auto dx = x - mx;
  auto dy = y - my;
  auto z = (matx::sqrt(dx * dx + dy * dy) - mu) / sigma;
  (r = 0.3989422804f / sigma * matx::exp(-0.5f * z * z) * w).run();
  cudaDeviceSynchronize();
  std::printf("%d\n", static_cast<int>(r.Size(0) * r.Size(1)));
}
